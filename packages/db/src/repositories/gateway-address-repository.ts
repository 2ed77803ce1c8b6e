import type { Pool } from 'pg';

export type GatewayAddressRole = 'relayer' | 'platform_fee';

export interface GatewayAddress {
  /** Any case; stored lower-case. */
  address: string;
  role: GatewayAddressRole;
}

/**
 * The gateway's own addresses besides its temporary wallets, as the settlement worker (which
 * alone knows them) registers them at boot. The chain watcher reads them to tell the gateway's
 * own transfers from customers' deposits; an address stays registered after it is replaced.
 */
export class GatewayAddressRepository {
  constructor(private readonly pool: Pool) {}

  async register(addresses: readonly GatewayAddress[]): Promise<void> {
    await this.pool.query({
      name: 'gateway-addresses-register',
      text: `INSERT INTO gateway_addresses (address, role) SELECT * FROM unnest($1::text[], $2::text[])
             ON CONFLICT (address, role) DO NOTHING`,
      values: [addresses.map((entry) => entry.address.toLowerCase()), addresses.map((entry) => entry.role)],
    });
  }
}
