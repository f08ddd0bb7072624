/**
 * The command line of a tool script: `--help` (or `-h`) prints its usage and exits 0; an
 * option it does not know, a missing value or a value it cannot use prints what is wrong and
 * the usage on stderr and exits 2, never a stack trace.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface CommandLine<T extends Options> {
  readonly values: ReturnType<
    typeof parseArgs<{ options: T; strict: true; allowPositionals: false }>
  >['values'];
  /** Reports `message` and the usage on stderr and exits 2. */
  fail(message: string): never;
}

export function parseCommandLine<T extends Options>(
  tool: string,
  usage: string,
  options: T,
  argv: readonly string[] = process.argv.slice(2),
): CommandLine<T> {
  const fail = (message: string): never => {
    process.stderr.write(`${tool}: ${message}\n\n${usage.trimEnd()}\n`);
    process.exit(2);
  };
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${usage.trimEnd()}\n`);
    process.exit(0);
  }
  try {
    const { values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false });
    return { values, fail };
  } catch (e) {
    // node:util's own message names the option (ERR_PARSE_ARGS_UNKNOWN_OPTION and the like).
    return fail((e as Error).message);
  }
}

/** A whole number within [min, max] from an option's text; anything else is a usage error. */
export function intOption(
  cli: Pick<CommandLine<Options>, 'fail'>,
  name: string,
  text: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    cli.fail(`--${name} ${JSON.stringify(text)}: expected a whole number ${range}`);
  }
  return n;
}
