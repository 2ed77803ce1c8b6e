import { getAddress } from 'viem';
import {
  CallbackDeliveryRepository,
  resendCallbackDelivery,
  WalletRepository,
  type GivenUpCallbackDelivery,
  type ReleasedWallet,
} from '@gateway/db/cli';
import { callbackOriginPath, callbackPathKey } from '@gateway/domain';
import { enqueueDeliveries, openCallbackQueue, produceWithin } from '@gateway/queue';
import { CommandFailed, parseCommandArgs, toJson, UsageError, type CliIo } from '../command-kit';
import { openDatabase, withDatabase } from '../database';
import { redisFromEnv } from '../redis';

/**
 * `gateway callbacks resend <delivery id>`: the admin route's operation (@gateway/db), with the
 * callback-worker's role and, when Redis answers, the job queued now rather than by the reconciler.
 */
export async function resendCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (positionals.length !== 1) throw new UsageError('name one callback delivery id (uuid)');
  const id = positionals[0]!;
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw new UsageError(`${id} is not a callback delivery id (uuid)`);
  const redis = redisFromEnv(io.env);
  const outcome = await withDatabase(openDatabase(io.env, 'resend', 'callback-worker'), (pool) =>
    // The queue is opened only for a delivery that is pending again.
    resendCallbackDelivery(new CallbackDeliveryRepository(pool), id, (deliveryId) =>
      produceWithin(openCallbackQueue(redis), (queue) => enqueueDeliveries(queue, [deliveryId])),
    ),
  );
  if (outcome.result === 'invalid_id') throw new UsageError(outcome.message);
  if (outcome.result !== 'resent') throw new CommandFailed(outcome.message);
  if (values.json) {
    io.out(toJson({ deliveryId: outcome.deliveryId, status: 'pending', nextAttemptAt: outcome.nextAttemptAt, queuedBy: outcome.queuedBy }));
  } else if (outcome.queuedBy === 'queued') {
    io.out(`delivery ${outcome.deliveryId} is pending again and queued now`);
  } else {
    io.out(
      `delivery ${outcome.deliveryId} is pending again; Redis did not take the job (${outcome.queueError}), the worker's reconciler will ` +
        `queue it`,
    );
  }
  return 0;
}

const GIVEN_UP = ['failed', 'refused'] as const;
const LIST_LIMIT = { default: 50, max: 1000 };

/**
 * `gateway callbacks list [--status failed|refused] [--limit n]`: the newest deliveries the retries
 * gave up on (both statuses unless one is named), each with its last answer: what an operator tells
 * the merchant about, then resends. Reads only, with the owner's login (as `gateway story`).
 */
export async function listCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { status: { type: 'string' }, limit: { type: 'string' } });
  if (positionals.length !== 0) throw new UsageError('takes no arguments but --status and --limit');
  const status = values.status;
  if (status !== undefined && !GIVEN_UP.some((given) => given === status)) {
    throw new UsageError(`--status must be failed or refused (the deliveries an operator resends), not ${status}`);
  }
  const limit = values.limit === undefined ? LIST_LIMIT.default : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT.max) {
    throw new UsageError(`--limit must be a whole number from 1 to ${LIST_LIMIT.max}`);
  }
  const statuses = GIVEN_UP.filter((given) => status === undefined || given === status);
  const deliveries = await withDatabase(openDatabase(io.env, 'list'), (pool) =>
    new CallbackDeliveryRepository(pool).listGivenUp(statuses, limit),
  );
  if (values.json) io.out(toJson(deliveries));
  else if (deliveries.length === 0) io.out(`no ${statuses.join(' or ')} callback delivery`);
  else for (const delivery of deliveries) io.out(listLine(delivery));
  return 0;
}

function listLine(delivery: GivenUpCallbackDelivery): string {
  const answer =
    delivery.lastStatusCode !== null
      ? `HTTP ${delivery.lastStatusCode}${delivery.lastAnswer ? `: ${JSON.stringify(delivery.lastAnswer.slice(0, 200))}` : ''}`
      : (delivery.lastError ?? 'no answer');
  const deposit = delivery.depositId === null ? '' : `deposit ${delivery.depositId}  `;
  const resent = delivery.resendCount > 0 ? `, resent ${delivery.resendCount} time(s)` : '';
  return (
    `${(delivery.lastAttemptAt ?? delivery.createdAt).toISOString()}  ${delivery.status}  ${delivery.id}  ${deposit}` +
    `${delivery.callbackUrl}  ${delivery.attemptCount} attempt(s)${resent}, last: ${answer}`
  );
}

function describe(wallet: ReleasedWallet): string {
  return `wallet ${getAddress(wallet.polygonAddress)} (payout ${getAddress(wallet.payoutAddress)})`;
}

/**
 * `gateway callbacks release <callback URL> | --list`: frees a callback URL so it can be registered
 * again: the wallet holding the URL, and the claim on the URL's origin and path (migration 017,
 * CALLBACK_OWNERSHIP=path) with every live wallet created under it. A released wallet keeps its
 * temporary address, payout address and split (USDC paid into it is still forwarded: money is never
 * stranded), Check Payment Status still answers its ipn_token, but its callbacks are never sent again
 * (`callback_released`, also on a resend). It changes wallets, which no app's role may: the owner's login.
 */
export async function releaseCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { list: { type: 'boolean' } });
  if (values.list ? positionals.length !== 0 : positionals.length !== 1) {
    throw new UsageError('name one callback URL, exactly as registered, or --list');
  }
  const url = positionals[0];
  if (url !== undefined && !URL.canParse(url)) throw new UsageError(`not an absolute URL: ${url}`);
  return withDatabase(openDatabase(io.env, 'release'), async (pool) => {
    const wallets = new WalletRepository(pool);
    if (url === undefined) {
      const released = await wallets.listReleased();
      if (values.json) io.out(toJson(released));
      else if (released.length === 0) io.out('no wallet has a released callback');
      else for (const wallet of released) io.out(`${wallet.releasedAt.toISOString()}  ${describe(wallet)}  ${wallet.callbackUrl}`);
      return 0;
    }
    // The URL is compared byte for byte, as Create Wallet registered it: pass it decoded (as
    // callback_url in Create Wallet's answer), not percent-encoded as the callback= parameter.
    // Its origin and path are compared in their canonical form, whatever the query.
    const exact = await wallets.releaseCallback(url);
    const path = callbackOriginPath(url);
    const claim = await wallets.releaseCallbackPath(callbackPathKey(path));
    const released = [...(exact ? [exact] : []), ...claim.wallets.filter((wallet) => wallet.polygonAddress !== exact?.polygonAddress)];
    if (released.length === 0 && !claim.claimed) {
      throw new CommandFailed(
        `no wallet holds the callback ${url} (compared byte for byte) and no claim holds ${path}: already released, or never registered`,
      );
    }
    if (values.json) {
      io.out(toJson({ path, claimReleased: claim.claimed, wallets: released }));
      return 0;
    }
    if (claim.claimed) io.out(`released the claim on ${path}: a wallet with any payout address may claim it again`);
    for (const wallet of released) {
      io.out(
        `released ${wallet.callbackUrl} from ${describe(wallet)}: its payments are still forwarded to that payout address, ` +
          'but it never calls this URL again; the URL can be registered again',
      );
    }
    return 0;
  });
}
