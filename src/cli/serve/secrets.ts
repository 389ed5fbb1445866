/**
 * The webhook secrets of `signfold serve`, read from the environment (never
 * from the command line, where `ps` would show them) and never printed.
 */
import { CliError, usageError } from '../cli-error.js';

/** What verifying deliveries needs: the secrets, or the explicit choice of none. */
export type SecretSetting =
  | { readonly verify: true; readonly secrets: readonly string[] }
  | { readonly verify: false };

const listed = (names: readonly string[]): string =>
  names.length === 1 ? (names[0] ?? '') : `any of ${names.join(', ')}`;

/**
 * The non-empty values of the variables `names` (an empty value is no
 * secret: an empty HMAC key would let anyone sign). None at all is an error
 * unless `insecure` (`--insecure-no-signature`); secrets together with
 * `insecure` are a contradiction the user must resolve, not one we guess at.
 */
export const webhookSecrets = (
  names: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  insecure: boolean,
): SecretSetting => {
  const secrets = [
    ...new Set(names.map((name) => env[name] ?? '').filter((value) => value !== '')),
  ];
  if (insecure) {
    if (secrets.length > 0) {
      const set = names.filter((name) => (env[name] ?? '') !== '');
      throw usageError(
        `--insecure-no-signature verifies nothing, yet ${set.join(', ')} holds a secret: unset it or drop the flag`,
      );
    }
    return { verify: false };
  }
  if (secrets.length === 0) {
    throw new CliError(
      `no webhook secret: set ${listed(names)} (an empty value does not count) to the secret the sender signs with, or pass --insecure-no-signature to accept unsigned deliveries`,
    );
  }
  return { verify: true, secrets };
};
