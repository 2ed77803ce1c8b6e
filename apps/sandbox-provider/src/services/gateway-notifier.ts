import { Agent, request } from 'undici';
import { SANDBOX_WEBHOOK_SIGNATURE_HEADER, signSandboxWebhook, type SandboxWebhookBody } from '@gateway/providers';

export interface NotifierLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface GatewayNotifierOptions {
  /** payment-redirect's base URL; undefined sends nothing. */
  baseUrl: string | undefined;
  secret: Buffer;
  log: NotifierLog;
  timeoutMs?: number;
}

export interface GatewayNotice extends SandboxWebhookBody {
  /** The provider the sandbox stood in for: the webhook goes to `/webhooks/<provider>`. */
  provider: string;
}

const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * Tells the gateway what happened to a payment, like a real provider's webhook. Best effort: it
 * never delays the customer and never moves money (the gateway follows the chain for that), so a
 * failure is logged and forgotten.
 */
export class GatewayNotifier {
  private readonly agent: Agent;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timeoutMs: number;

  constructor(private readonly options: GatewayNotifierOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.agent = new Agent({ connect: { timeout: this.timeoutMs }, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
  }

  /** Sends in the background; `close()` waits for what is still under way. */
  notify({ provider, ...body }: GatewayNotice): void {
    if (!this.options.baseUrl) return;
    const sending: Promise<void> = this.post(`${this.options.baseUrl}/webhooks/${encodeURIComponent(provider)}`, body).finally(() =>
      this.inFlight.delete(sending),
    );
    this.inFlight.add(sending);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    await this.agent.close();
  }

  private async post(url: string, body: SandboxWebhookBody): Promise<void> {
    const rawBody = Buffer.from(JSON.stringify(body));
    const details = { paymentId: body.payment_id, status: body.status, url };
    try {
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        body: rawBody,
        headers: {
          'content-type': 'application/json',
          [SANDBOX_WEBHOOK_SIGNATURE_HEADER]: signSandboxWebhook(rawBody, this.options.secret),
        },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await response.body.dump();
      if (response.statusCode >= 300) this.options.log.warn({ ...details, statusCode: response.statusCode }, 'gateway refused the webhook');
      else this.options.log.info(details, 'webhook delivered');
    } catch (error) {
      this.options.log.warn({ ...details, error: (error as Error).message }, 'webhook not delivered');
    }
  }
}
