export { AudioWorkletNode, MediaStreamAudioSourceNode, MinimalAudioContext, addAudioWorkletModule } from 'standardized-audio-context';
export type {
  IAnalyserNode, IAudioBufferSourceNode, IAudioContext, IAudioNode, IAudioWorkletNode, IGainNode,
  IMediaStreamAudioSourceNode, IMinimalAudioContext, IOfflineAudioContext,
} from 'standardized-audio-context';
