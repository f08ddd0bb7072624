import { describe, expect, it } from 'vitest';
import { MIN_PASSWORD_LENGTH, passwordProblem } from '../../shared/client/password.js';

describe('new account passwords', () => {
  it('refuses a short password with a sentence that says how long', () => {
    expect(MIN_PASSWORD_LENGTH).toBeGreaterThanOrEqual(8);
    expect(passwordProblem('x')).toBe(`Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`);
    expect(passwordProblem('1234567')).toBeDefined();
  });

  it('accepts one of the minimum length, counting characters rather than bytes', () => {
    expect(passwordProblem('12345678')).toBeUndefined();
    expect(passwordProblem('ééééééé')).toBeDefined();
  });
});
