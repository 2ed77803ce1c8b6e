-- A provider's events kept once read from a queue the provider wants emptied (issue 35): Simplex's
-- poll method is read, store, delete each. payment-redirect's one consumer (under an advisory lock)
-- inserts each event here, then deletes it at Simplex; the adapter's status look-up reads this copy.
--
-- (provider, event_id)  the provider's id of the event: an event inserted again (a consumer that
--                       stopped between insert and delete reads it again) is kept once
-- provider_reference    the provider's id of the order the event is about, when it names one
-- payment_id            our payment id, when the event names it (no foreign key: an event may name
--                       a payment of another gateway sharing the partner account, or none)
-- body                  the event as the provider sent it

CREATE TABLE provider_events (
  provider           text        NOT NULL CHECK (provider ~ '^[a-z0-9]{2,32}$'),
  event_id           text        NOT NULL CHECK (length(event_id) BETWEEN 1 AND 128),
  provider_reference text        CHECK (length(provider_reference) <= 200),
  payment_id         uuid,
  body               jsonb       NOT NULL,
  received_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, event_id)
);

-- The look-ups: by the provider's order id once known, else by our payment id.
CREATE INDEX provider_events_reference_idx ON provider_events (provider, provider_reference) WHERE provider_reference IS NOT NULL;
CREATE INDEX provider_events_payment_idx ON provider_events (provider, payment_id) WHERE payment_id IS NOT NULL;
