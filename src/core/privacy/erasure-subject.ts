/**
 * Who is being forgotten: the ids and names of one person, and the
 * pseudonym that replaces their names everywhere. One `signfold forget`
 * names one person, so every id and name it is given shares one pseudonym:
 * counts of distinct people stay what they were.
 */

/** The person an erasure is about. */
export interface ErasureSubject {
  /** Participant ids: the participant name of every event and document of each is replaced. */
  readonly participantIds: readonly number[];
  /** User ids: the owner name and the sender name of every event of each is replaced. */
  readonly userIds: readonly number[];
  /**
   * Names given as text (compared after Unicode NFC): every person-name
   * member equal to one is replaced, and every occurrence of one in text
   * that is not a valid event (bad lines, effects).
   */
  readonly names: readonly string[];
  /** Only records of this company, when given (a record that names no company is included). */
  readonly companyId?: number;
  /** What replaces the names: see `newPseudonym`. */
  readonly pseudonym: string;
}
