// Entry of an SRP worker thread when the server runs from TypeScript source (tsx, vitest).
// Node 20 does not apply `--import` loader hooks to a worker's own entry module, so the thread
// registers tsx itself, then imports the TypeScript worker named in workerData.entry.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
