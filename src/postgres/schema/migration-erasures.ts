/**
 * Schema version 6 (issue 33): the erasure ledger and the one controlled path
 * past the append-only trigger.
 *
 * - `erasures`: what each `forget` did (ids, pseudonym, counts, times: never
 *   a name), one row per `started` and `done` entry of `ErasureLedger`. `txid`
 *   is the transaction that wrote the row.
 * - The append-only trigger of version 1 refused every UPDATE, DELETE and
 *   TRUNCATE of `events`. Now an UPDATE passes only inside a transaction that
 *   has written a `started` row to `erasures` (forget's), and then only one
 *   that changes `body` and `bad_line` and no other column. DELETE and
 *   TRUNCATE are refused as before, and so is a plain UPDATE, with the same
 *   message. This is a guard against mistakes, not a permission: whoever can
 *   write the ledger by hand can pass it, and the ledger then shows they did.
 * - `ledger_unchanged(known)`: appends check, after the append lock is taken,
 *   that the ledger is still the one they erased their events with (see
 *   erased-appends.ts): its number of rows, which every forget's commit
 *   changes (the largest id would not: two forgets may commit out of the
 *   order of their ids). A volatile function reads with a fresh snapshot, so
 *   it sees a forget that committed while the append waited for the lock.
 */
import type { SchemaName } from '../schema-name.js';

/** SQLSTATE raised by `ledger_unchanged`: the append must erase again with the new ledger. */
export const LEDGER_CHANGED = 'SF001';

/** Version 6 (see the file comment). */
export const version6 = (s: SchemaName): string => `
CREATE TABLE ${s}.erasures (
  id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  erasure   text NOT NULL,
  state     text NOT NULL CHECK (state IN ('started', 'done')),
  at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  txid      xid8 NOT NULL DEFAULT pg_current_xact_id(),
  entry     jsonb NOT NULL,
  UNIQUE (erasure, state)
);
CREATE INDEX erasures_txid ON ${s}.erasures (txid);

CREATE FUNCTION ${s}.ledger_unchanged(known bigint) RETURNS boolean
  LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF (SELECT count(*) FROM ${s}.erasures) <> known THEN
    RAISE EXCEPTION 'signfold: the erasure ledger of % changed; erase the events again', '${s}'
      USING ERRCODE = '${LEDGER_CHANGED}';
  END IF;
  RETURN true;
END $$;

DROP TRIGGER events_append_only ON ${s}.events;
CREATE TRIGGER events_append_only BEFORE DELETE OR TRUNCATE ON ${s}.events
  FOR EACH STATEMENT EXECUTE FUNCTION ${s}.refuse_rewrites();

CREATE FUNCTION ${s}.allow_erasures() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM ${s}.erasures
                  WHERE txid = pg_current_xact_id() AND state = 'started') THEN
    RAISE EXCEPTION 'signfold: %.events is append-only (% refused)', '${s}', TG_OP;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER events_append_only_erasures BEFORE UPDATE ON ${s}.events
  FOR EACH STATEMENT EXECUTE FUNCTION ${s}.allow_erasures();

CREATE FUNCTION ${s}.erase_only_names() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.position, NEW.delivery_id, NEW.received_at, NEW.event_type, NEW.company_id,
      NEW.template_id, NEW.sign_request_id)
     IS DISTINCT FROM
     (OLD.position, OLD.delivery_id, OLD.received_at, OLD.event_type, OLD.company_id,
      OLD.template_id, OLD.sign_request_id) THEN
    RAISE EXCEPTION 'signfold: an erasure may change only body and bad_line of %.events (position %)',
      '${s}', OLD.position;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER events_erase_only_names BEFORE UPDATE ON ${s}.events
  FOR EACH ROW EXECUTE FUNCTION ${s}.erase_only_names();
`;
