/**
 * Dataset imports as background tasks. Starting an import writes a RUNNING task row (what the 202
 * answers) and queues the work; the work collects the records, then inserts them and marks the task
 * COMPLETED in one transaction, or marks it FAILED with a message saying why. Tasks run one at a time, in
 * the order they were accepted.
 *
 * The task row keeps its request, so a task interrupted by a shutdown (still RUNNING when the platform
 * opens again) is run again by {@link DatasetImports.resume}; since records are only written on
 * completion, running it again never duplicates them. Each task runs under a lease (store/leases.ts): processes
 * sharing a PostgreSQL database run it once, and another process (looking every few seconds) runs again a task
 * whose process died, once its lease runs out.
 *
 * An explorer import copies completion events (request and response messages as one `messages` payload,
 * source EXPLORER); a campaign import copies the events the campaign selected, in selection order.
 *
 * A file import reads a `data:` URL, or a file of the files API as its creator sees it (the task's
 * workspace and creator: a private file of the creator is readable, another user's is not).
 */
import type { PlatformContext } from '../http/context.js';
import type { DatasetImportTask, DatasetStore, ImportRequest, NewRecord } from './datasets.js';
import { decodeDataUrl, parseJsonlRecords } from './jsonl.js';
import type { CompletionEvent } from './events.js';
import { claim, pollForWork, type JobQueue, type Lease } from '../store/leases.js';

/** Import tasks with work left. */
const QUEUE: JobQueue = { table: 'dataset_tasks', pending: `status = 'RUNNING'`, order: 'seq' };

/** The completion events an explorer or campaign import copies: found in the task's workspace. */
export interface CompletionEventSource {
  /** The events among `ids` the workspace has, in the order of `ids` (unknown ids left out). */
  events(workspaceId: string, ids: readonly string[]): Promise<CompletionEvent[]>;
  /** The ids of the events a campaign of the workspace selected, or null when there is no such campaign. */
  campaignEventIds(workspaceId: string, campaignId: string): Promise<string[] | null>;
}

/** A completion event as a dataset record: its request and response messages as one conversation. */
function eventRecord(event: CompletionEvent, properties: Record<string, unknown> = {}): NewRecord {
  return {
    payload: { messages: [...event.request_messages, ...event.response_messages] },
    properties: {
      completion_event_id: event.event_id, correlation_id: event.correlation_id, model: event.extra_fields.model ?? null,
      ...(event.extra_fields.agent_id ? { agent_id: event.extra_fields.agent_id } : {}), ...properties,
    },
    source: 'EXPLORER',
  };
}

/** `1 record`, `2 records`. */
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Why an import could not complete, as the task's message. */
class ImportFailure extends Error {}

interface QueuedTask { id: string; datasetId: string; workspaceId: string; creatorId: string; request: ImportRequest }

/** The bytes of a file of the files API as `userId` of `workspaceId` sees it, undefined when there is none. */
export type StoredFileReader = (workspaceId: string, userId: string, fileId: string) => Promise<Uint8Array | undefined>;

export class DatasetImports {
  private queue: Promise<void> = Promise.resolve();
  /** Ids of tasks queued by this process and not yet tried, so resume() never queues a task twice. */
  private readonly queued = new Set<string>();
  private polling = false;

  constructor(
    private readonly store: DatasetStore,
    private readonly conversations: PlatformContext['conversations'],
    private readonly readFile: StoredFileReader,
    private readonly completions: CompletionEventSource,
  ) {}

  /** Writes a RUNNING task for the import and queues it; answers the task as written. */
  async start(input: { datasetId: string; workspaceId: string; creatorId: string; request: ImportRequest }): Promise<DatasetImportTask> {
    const task = await this.store.createTask(input);
    this.enqueue({ id: task.id, ...input });
    return task;
  }

  /** Queues again the tasks a previous process left RUNNING (call once, when the platform opens). */
  resume(): void {
    if (!this.polling) {
      this.polling = true;
      // On PostgreSQL: tasks of a process that died (their lease ran out) are run here.
      pollForWork(this.store.db, () => this.resume());
    }
    this.queue = this.queue
      .then(() => this.store.runningTasks())
      // A database that cannot be read at start fails every request anyway; the tasks stay RUNNING for the next start.
      .then((tasks) => tasks.forEach((task) => this.enqueue(task)), () => undefined);
  }

  private enqueue(task: QueuedTask): void {
    if (this.queued.has(task.id)) return;
    this.queued.add(task.id);
    this.queue = this.queue.then(() => this.runLeased(task)).catch(() => undefined).finally(() => this.queued.delete(task.id));
  }

  /** Runs the task unless another process holds it (or it is no longer RUNNING). */
  private async runLeased(task: QueuedTask): Promise<void> {
    const lease = await claim(this.store.db, QUEUE, task.id);
    if (!lease) return;
    try {
      await this.run(task, lease);
    } finally {
      await lease.release();
    }
  }

  private async run(task: QueuedTask, lease: Lease): Promise<void> {
    let outcome: { records: NewRecord[]; message: string };
    try {
      outcome = await this.collect(task);
    } catch (err) {
      await this.fail(task.id, err instanceof ImportFailure ? err.message : `Import failed: ${(err as Error).message}`);
      return;
    }
    // Another process took the task over (this one was too slow to renew): it writes the records.
    if (!(await lease.renew())) return;
    try {
      await this.store.completeTask(task.id, task.datasetId, outcome.records, outcome.message);
    } catch (err) {
      await this.fail(task.id, `Import failed while writing the records: ${(err as Error).message}`);
    }
  }

  private async fail(id: string, message: string): Promise<void> {
    // When even this write fails the database is closing: the task stays RUNNING and resume() runs it again on the next start.
    await this.store.failTask(id, message).catch(() => undefined);
  }

  private async collect(task: QueuedTask): Promise<{ records: NewRecord[]; message: string }> {
    const { request } = task;
    switch (request.kind) {
      case 'playground': {
        const records: NewRecord[] = [];
        for (const [i, id] of request.conversation_ids.entries()) {
          if (!(await this.conversations.get(id))) throw new ImportFailure(`Conversation '${id}' not found (it was deleted after the import was accepted)`);
          const messages = (await this.conversations.entries(id))
            .filter((e) => e.type === 'message.input' || e.type === 'message.output')
            .map((e) => ({ role: (e as { role: string }).role, content: (e as { content: unknown }).content }));
          records.push({ payload: { messages }, properties: { conversation_id: id }, source: 'PLAYGROUND' });
          await this.store.setProgress(task.id, Math.min(99, Math.floor((100 * (i + 1)) / request.conversation_ids.length)));
        }
        return { records, message: `Imported ${plural(records.length, 'record')} from ${plural(records.length, 'conversation')}` };
      }
      case 'dataset': {
        const found = await this.store.getRecords(task.workspaceId, request.dataset_record_ids);
        if (found.length !== request.dataset_record_ids.length) {
          const have = new Set(found.map((r) => r.id));
          const gone = request.dataset_record_ids.find((id) => !have.has(id));
          throw new ImportFailure(`Dataset record '${gone}' not found (it was deleted after the import was accepted)`);
        }
        const records = found.map((r) => ({ payload: r.payload, properties: r.properties, source: r.source }));
        return { records, message: `Copied ${plural(records.length, 'record')}` };
      }
      case 'file': {
        const text = await this.fileText(task, request.file_id);
        let records: NewRecord[];
        try {
          records = parseJsonlRecords(text);
        } catch (err) {
          throw new ImportFailure(`The file is not valid JSONL: ${(err as Error).message}`);
        }
        return { records, message: `Imported ${plural(records.length, 'record')} from the file` };
      }
      case 'explorer': {
        const events = await this.eventsOf(task.workspaceId, request.completion_event_ids);
        return { records: events.map((e) => eventRecord(e)), message: `Imported ${plural(events.length, 'record')} from ${plural(events.length, 'completion event')}` };
      }
      case 'campaign': {
        const ids = await this.completions.campaignEventIds(task.workspaceId, request.campaign_id);
        if (!ids) throw new ImportFailure(`Campaign '${request.campaign_id}' not found (it was deleted after the import was accepted)`);
        const events = await this.eventsOf(task.workspaceId, ids);
        const records = events.map((e) => eventRecord(e, { campaign_id: request.campaign_id }));
        return { records, message: `Imported ${plural(records.length, 'record')} from the ${plural(records.length, 'completion event')} of campaign '${request.campaign_id}'` };
      }
    }
  }

  /** The events of `ids`, all of them or a failure naming the first one missing. */
  private async eventsOf(workspaceId: string, ids: readonly string[]): Promise<CompletionEvent[]> {
    const found = await this.completions.events(workspaceId, ids);
    if (found.length !== ids.length) {
      const have = new Set(found.map((e) => e.event_id));
      throw new ImportFailure(`Completion event '${ids.find((id) => !have.has(id))}' not found`);
    }
    return found;
  }

  /** The JSONL text of a from-file import: a `data:` URL's content or a stored file's bytes as UTF-8. */
  private async fileText(task: QueuedTask, fileId: string): Promise<string> {
    if (/^data:/i.test(fileId)) {
      const text = decodeDataUrl(fileId);
      if (text === null) throw new ImportFailure(`File '${fileId.slice(0, 80)}' cannot be read`);
      return text;
    }
    const bytes = await this.readFile(task.workspaceId, task.creatorId, fileId);
    if (!bytes) throw new ImportFailure(`File '${fileId}' not found (it was deleted after the import was accepted)`);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new ImportFailure('The file is not valid JSONL: it is not UTF-8 text');
    }
  }
}
