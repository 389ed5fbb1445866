/**
 * The version of signfold's fold rules: what a record folds to (decoding and
 * the status rules). A release that changes it changes what some log folds
 * to, so a snapshot records the version it was made under and a projector of
 * another version refuses it rather than keep a stale quarantine.
 */
export const FOLD_RULES_VERSION = 1;
