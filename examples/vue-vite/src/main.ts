import { createApp } from 'vue';
// Registers <agent-chat> before Vue renders it.
import 'parley-kit/agent-chat';
import App from './App.vue';

createApp(App).mount('#app');
