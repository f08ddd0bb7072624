/**
 * The password rule both clients apply before registering. SRP sends only a verifier, so the
 * server never sees the password and cannot check it: the rule lives where the password does.
 */

/** Short enough to type, long enough that guessing it offline from a stolen verifier is slow. */
export const MIN_PASSWORD_LENGTH = 8;

/** What is wrong with `password` for a new account, in words; undefined when it will do. */
export function passwordProblem(password: string): string | undefined {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  }
  return undefined;
}
