/**
 * Waits until `check` holds, polling every `everyMs`; fails with `what` after `timeoutMs`. A
 * check that asks the server (who) polls no faster than the server lets a client ask.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
  everyMs = 10,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
