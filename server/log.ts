/**
 * Structured logs (pino, JSON lines on stdout). One root logger per server, made from the
 * configured level; modules take a child with their own bindings (connection id, component).
 */
import { pino } from 'pino';
import type { LogLevel } from './config.js';

export type Logger = pino.Logger;

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A logger that writes nothing, for tests and tools. */
export const silentLogger: Logger = pino({ level: 'silent' });
