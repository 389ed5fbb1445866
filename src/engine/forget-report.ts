/**
 * What a forget did (or, with `dryRun`, would do), whatever stores the
 * events: the file engine and PostgreSQL both answer with it, and the CLI
 * prints it. It holds no name: only ids, counts and the pseudonym.
 */

/** What to forget: one person, by ids and typed names (already NFC). */
export interface ForgetRequest {
  readonly participantIds: readonly number[];
  readonly userIds: readonly number[];
  readonly names: readonly string[];
  readonly companyId?: number;
  /** List what would change; change nothing, write no ledger entry. */
  readonly dryRun: boolean;
}

/** The outcome of a forget. */
export interface ForgetReport {
  /** The erasure's id in the ledger (a dry run makes one up, and writes nothing). */
  readonly erasure: string;
  readonly pseudonym: string;
  /** Whether the pseudonym is that of an earlier erasure of one of the ids or typed names. */
  readonly reused: boolean;
  readonly dryRun: boolean;
  readonly participantIds: readonly number[];
  readonly userIds: readonly number[];
  readonly typedNames: number;
  readonly companyId?: number;
  /** How many distinct names the ids were found with (the names are not shown). */
  readonly foundNames: number;
  /**
   * Other participant ids stored with one of those names: participant ids
   * are per sign request, so the same person's other requests carry the
   * name under another id, which this forget left as it was. The operator
   * adds them (`--participant`) or forgets by `--name`, if they are this
   * person; another person of the same name is listed too.
   */
  readonly sameNameParticipantIds: readonly number[];
  /**
   * What changed, by place (`log records`, `bad lines`, `journal lines`,
   * `snapshots`, `events`, `participants`, `effects`…): how many records,
   * lines or rows.
   */
  readonly counts: Readonly<Record<string, number>>;
  /** Places that still hold a name afterwards and that forget cannot rewrite (files, tables). */
  readonly remaining: readonly string[];
  /** Anything else the user must know: a snapshot removed, a VACUUM run… */
  readonly notes: readonly string[];
}
