// parley-kit's elements in a React 19 component, typed by the generated parley-kit/react. Compiled by
// test/unit/package/framework-types.test.ts (tsc, never run), once as it is and once without the
// expect-error comments, when it must fail on exactly the lines they stood before.
import type {} from 'parley-kit/react';
import type { AgentChat, ClientTool, SpeechPlayer } from 'parley-kit';
import { useRef, useState } from 'react';

export function Shop() {
  const chat = useRef<AgentChat>(null);
  const player = useRef<SpeechPlayer>(null);
  const [reply, setReply] = useState('');
  const tools: Record<string, ClientTool> = { get_order_status: ({ order_id }: { order_id: string }) => ({ order_id, status: 'shipped' }) };
  return (
    <main>
      <agent-chat
        ref={chat}
        relay-url="/api"
        mode="launcher"
        agent-id="ag_1"
        resume="none"
        open
        speak-replies
        tools={tools}
        strings={{ send: 'Envoyer' }}
        className="chat"
        style={{ maxWidth: 420 }}
        onparley-reply-finished={(e) => setReply(e.detail.text)}
        onparley-error={(e) => console.warn(e.detail.error.status, e.detail.error.message)}
        onparley-open-changed={(e) => console.log(e.detail.open === true)}
        onClick={(e) => e.currentTarget.show()}
      >
        <p slot="empty">Ask about your order.</p>
      </agent-chat>
      <speech-player ref={player} relay-url="/api" voice="en-gb-female" text={reply} format="wav" rate={1.25}
        onparley-speech-end={(e) => console.log(e.detail.stopped, e.detail.played)} />
      <audio-transcriber relay-url="/api" mode="push-to-talk" timestamps diarize language="en"
        onparley-transcription-final={(e) => setReply(e.detail.text + e.detail.segments.length)} />
      <doc-ocr-viewer relay-url="/api" batch-size={4} hide-images heading="Invoice"
        onparley-ocr-done={(e) => console.log(e.detail.result.pages.length, e.detail.name)} />

      {/* Wrong values: each line below must be a type error. */}
      {/* @ts-expect-error -- mode is 'inline' | 'launcher' */}
      <agent-chat mode="sideways" />
      {/* @ts-expect-error -- the detail of parley-reply-finished has no `nope` */}
      <agent-chat onparley-reply-finished={(e) => e.detail.nope} />
      {/* @ts-expect-error -- tools is an object of functions, not a string */}
      <agent-chat tools="get_order_status" />
      {/* @ts-expect-error -- open is a boolean */}
      <agent-chat open="yes please" />
      {/* @ts-expect-error -- a ref of another element */}
      <agent-chat ref={player} />
      {/* @ts-expect-error -- format is 'pcm' | 'wav' | 'mp3' | 'flac' | 'opus' */}
      <speech-player format="ogg" />
      {/* @ts-expect-error -- status is read-only */}
      <speech-player status="playing" />
      {/* @ts-expect-error -- the transcriber's modes are 'toggle' | 'push-to-talk' */}
      <audio-transcriber mode="launcher" />
      {/* @ts-expect-error -- batch-size is a number */}
      <doc-ocr-viewer batch-size="four" />
      {/* @ts-expect-error -- the detail of parley-ocr-done is { result, name } */}
      <doc-ocr-viewer onparley-ocr-done={(e) => e.detail.pages} />
    </main>
  );
}
