import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// Registers <agent-chat> before React renders it.
import 'parley-kit/agent-chat';
import { App } from './App';

createRoot(document.getElementById('root')!).render(<StrictMode><App /></StrictMode>);
