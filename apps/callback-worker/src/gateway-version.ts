// The app's own manifest, not the workspace root's: only the app's ships in its image. The apps are
// versioned with the gateway.
import appPackage from '../package.json';

/** `usdc-card-gateway/<version>`: merchants can tell our calls apart and see which release sent them. */
export function gatewayUserAgent(): string {
  return `usdc-card-gateway/${appPackage.version}`;
}
