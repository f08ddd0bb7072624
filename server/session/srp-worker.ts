/**
 * SRP worker thread: runs the big-integer steps of SRP-6a for SrpPool (see srp.ts for the
 * conventions). One job at a time; every job gets exactly one reply with its id. Step 2
 * failures of any kind (wrong M1, A = 0 mod N, empty fields) are a bad proof: they all come
 * from client input.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { SRPParameters, SRPRoutines, SRPServerSession, SRPServerSessionStep1 } from 'tssrp6a';
import { bigIntToBytes, bytesToBigInt, WORKER_READY, type SrpReply, type SrpRequest } from './srp.js';

const routines = new SRPRoutines(new SRPParameters());
const server = new SRPServerSession(routines);

export async function runSrpJob(request: SrpRequest): Promise<SrpReply> {
  if (request.op === 'step1') {
    try {
      const step = await server.step1(
        request.identity,
        bytesToBigInt(request.salt),
        bytesToBigInt(request.verifier),
      );
      return { id: request.id, ok: true, B: bigIntToBytes(step.B), state: step.toJSON() };
    } catch (err) {
      return { id: request.id, ok: false, code: 'internal', message: String(err) };
    }
  }
  try {
    const step = SRPServerSessionStep1.fromState(routines, request.state);
    const M2 = await step.step2(bytesToBigInt(request.A), bytesToBigInt(request.M1));
    return { id: request.id, ok: true, M2: bigIntToBytes(M2) };
  } catch {
    return { id: request.id, ok: false, code: 'bad-proof', message: 'client proof did not verify' };
  }
}

const port = parentPort;
if (port) {
  port.on('message', (request: SrpRequest) => {
    void runSrpJob(request).then((reply) =>
      port.postMessage({ ...reply, heap: getHeapStatistics().total_heap_size }),
    );
  });
  port.postMessage(WORKER_READY);
}
