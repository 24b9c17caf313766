/**
 * standardized-audio-context (MIT): one Web Audio API across browsers (Safari included). parley-kit
 * bundles the parts it uses into dist/browser/vendor/ at build time instead of depending on the
 * package (3,000 files, 3.8 MB installed with its helpers); scripts/vendor.mjs points dist/vendor/ at
 * the bundle and declares it with the DOM's Web Audio types.
 */
export { MinimalAudioContext, AudioWorkletNode, MediaStreamAudioSourceNode, addAudioWorkletModule } from 'standardized-audio-context';
