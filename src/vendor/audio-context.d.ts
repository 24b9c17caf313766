export { AudioContext, AudioWorkletNode } from 'standardized-audio-context';
export type {
  IAnalyserNode, IAudioBufferSourceNode, IAudioContext, IAudioNode, IAudioWorkletNode, IGainNode,
  IMediaStreamAudioSourceNode, IOfflineAudioContext,
} from 'standardized-audio-context';
