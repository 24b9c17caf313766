// Records the AudioContexts a page makes from now on (the browser's own constructor, wrapped); imports no
// audio module, so a test of what loads lazily may use it before anything is loaded.

export function watchAudioContexts(): { made: AudioContext[]; restore: () => void } {
  const Native = window.AudioContext;
  const made: AudioContext[] = [];
  window.AudioContext = class extends Native {
    constructor(options?: AudioContextOptions) {
      super(options);
      made.push(this);
    }
  };
  return { made, restore: () => { window.AudioContext = Native; } };
}
