import { Gauge, type Registry } from 'prom-client';
import type { FinalityMode, FinalityView } from '@gateway/domain';

const FINALITY_MODES = ['finalized', 'depth', 'undecided'] as const;

/**
 * The finality gauges, the same in every process that follows the rule: dashboards and alert
 * rules read them by one name whichever process reports them.
 */
export class FinalityGauges {
  private readonly mode: Gauge<'mode'>;
  private readonly lagBlocks: Gauge;

  /** `subject`: what becomes final in this process ('deposits', 'payouts'), for the help text. */
  constructor(registry: Registry, subject: string) {
    const registers = [registry];
    this.mode = new Gauge({
      name: 'chain_finality_mode',
      help:
        `1 for the rule ${subject} become final by: the node's finalized tag, CONFIRMATIONS depth (node without the tag), or ` +
        `undecided yet`,
      labelNames: ['mode'] as const,
      registers,
    });
    this.setMode(undefined);
    this.lagBlocks = new Gauge({
      name: 'chain_finality_lag_blocks',
      help: 'head minus the newest block the finality rule treats as final (grows while the chain does not finalize)',
      registers,
    });
  }

  observe({ head, mode, boundary }: FinalityView): void {
    this.setMode(mode);
    if (boundary !== undefined) this.lagBlocks.set(Number(head - boundary));
  }

  private setMode(mode: FinalityMode | undefined): void {
    const current: (typeof FINALITY_MODES)[number] = mode ?? 'undecided';
    for (const label of FINALITY_MODES) this.mode.set({ mode: label }, label === current ? 1 : 0);
  }
}
