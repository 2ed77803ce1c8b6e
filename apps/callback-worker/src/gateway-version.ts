import rootPackage from '../../../package.json';

/** `usdc-card-gateway/<version>`: merchants can tell our calls apart and see which release sent them. */
export function gatewayUserAgent(): string {
  return `${rootPackage.name}/${rootPackage.version}`;
}
