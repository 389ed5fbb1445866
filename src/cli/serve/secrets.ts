/**
 * The webhook secrets of `signfold serve`, read from the environment (never
 * from the command line, where `ps` would show them) and never printed.
 * `--secret-env NAME:COMPANY,COMPANY` binds a variable's secret to
 * companies: it verifies their events only.
 */
import { verifyingKey } from '../../webhooks/verifying-keys.js';
import type { BoundSecret, SignatureSchemeName } from '../../webhooks/webhook-types.js';
import { CliError, usageError } from '../cli-error.js';

/** A `--secret-env` value: a variable, and the companies its secret is bound to (none: any). */
export interface SecretEnv {
  readonly name: string;
  readonly companies?: readonly number[] | undefined;
}

/** What verifying deliveries needs: the secrets, or the explicit choice of none. */
export type SecretSetting =
  | { readonly verify: true; readonly secrets: readonly (string | BoundSecret)[] }
  | { readonly verify: false };

const listed = (names: readonly string[]): string =>
  names.length === 1 ? (names[0] ?? '') : `any of ${names.join(', ')}`;

const entryOf = (entry: string | SecretEnv): SecretEnv =>
  typeof entry === 'string' ? { name: entry } : entry;

/**
 * The non-empty values of the variables `entries` name (an empty value is no
 * secret: an empty HMAC key would let anyone sign), bound to their companies.
 * None at all is an error unless `insecure` (`--insecure-no-signature`);
 * secrets together with `insecure` are a contradiction the user must
 * resolve, not one we guess at. Under `standard-webhooks` each value must
 * be a `whsec_` secret or a `whpk_` public key: a usage error names the
 * variable and the form expected, never the value.
 */
export const webhookSecrets = (
  entries: readonly (string | SecretEnv)[],
  env: Readonly<Record<string, string | undefined>>,
  insecure: boolean,
  scheme: SignatureSchemeName = 'hmac',
): SecretSetting => {
  const given = entries.map(entryOf);
  const names = given.map((entry) => entry.name);
  const set = given.filter((entry) => (env[entry.name] ?? '') !== '');
  if (insecure) {
    if (set.length > 0) {
      throw usageError(
        `--insecure-no-signature verifies nothing, yet ${set.map((e) => e.name).join(', ')} holds a secret: unset it or drop the flag`,
      );
    }
    return { verify: false };
  }
  if (set.length === 0) {
    throw new CliError(
      `no webhook secret: set ${listed(names)} (an empty value does not count) to the secret the sender signs with, or pass --insecure-no-signature to accept unsigned deliveries`,
    );
  }
  const secrets: (string | BoundSecret)[] = [];
  const seen = new Set<string>();
  for (const { name, companies } of set) {
    const secret = env[name] ?? '';
    const entry = companies === undefined ? secret : { secret, companies };
    try {
      verifyingKey(entry, scheme, name);
    } catch (cause) {
      throw usageError(cause instanceof Error ? cause.message : String(cause));
    }
    const key = JSON.stringify([secret, companies ?? null]);
    if (!seen.has(key)) secrets.push(entry);
    seen.add(key);
  }
  return { verify: true, secrets };
};
