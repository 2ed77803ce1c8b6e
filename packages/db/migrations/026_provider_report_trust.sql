-- Provider reports that are not about the payment's order, or that come again late (issue 35).
--
-- provider_report_events  the reports without a signed time (TransFi, Transak webhooks) recorded
--                         for a payment, by the provider's event id or its order and status word
--                         (domain reportReplayKey): the unique key makes a replay record nothing.
--                         Kept with the payment (a few rows each), not in Redis: a replay a month
--                         later must still be known.
-- the trigger             the forward-only rule of provider statuses (domain providerStatusMove),
--                         below the app's column grant: whatever code writes provider_status, paid
--                         stays paid, nothing returns to pending or to no status, a charged card is
--                         never declined afterwards, and it ends as failed (a refund) only for the
--                         order it was charged by. Which report may move it is the domain's to say;
--                         this refuses the moves no report may make.

CREATE TABLE provider_report_events (
  payment_id uuid NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
  event_key  text NOT NULL CHECK (length(event_key) BETWEEN 1 AND 500),
  seen_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (payment_id, event_key)
);

CREATE FUNCTION payment_provider_status_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.provider_status = 'paid'
     OR NEW.provider_status IS NULL
     OR (NEW.provider_status = 'pending' AND OLD.provider_status <> 'pending')
     OR (OLD.provider_status = 'charged' AND NEW.provider_status = 'declined')
     OR (OLD.provider_status = 'charged' AND NEW.provider_status = 'failed'
         AND NEW.provider_reference IS DISTINCT FROM OLD.provider_reference) THEN
    RAISE EXCEPTION 'payment %: provider status % may not move to %', OLD.id, OLD.provider_status, NEW.provider_status
      USING ERRCODE = 'check_violation',
            HINT = 'provider statuses only move forward: paid is final, nothing returns to pending, and a charged card ends only by its own order''s refund';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER payments_provider_status_forward_only BEFORE UPDATE OF provider_status ON payments FOR EACH ROW
  WHEN (OLD.provider_status IS NOT NULL AND OLD.provider_status IS DISTINCT FROM NEW.provider_status)
  EXECUTE FUNCTION payment_provider_status_forward_only();
