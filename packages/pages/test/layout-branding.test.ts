import { join } from 'node:path';
import { createPageRenderer } from '../src';

const renderer = createPageRenderer(join(__dirname, 'views'));

describe('layout: per-page branding (hosted checkout)', () => {
  it('adds body classes, an inline style and a logo in place of the brand mark, all escaped', () => {
    const html = renderer.render('branded', {
      brand: 'Shop <b>',
      logo: 'https://cdn.shop.io/l.png?a=1&b="x"',
      bodyClass: 'checkout theme-dark',
      style: '--accent:#00aa77;--bg:#000000"><script>',
    });
    expect(html).toContain('<body class="gateway checkout theme-dark" style="--accent:#00aa77;--bg:#000000&quot;&gt;&lt;script&gt;">');
    expect(html).toContain(
      '<img class="brand-logo" src="https://cdn.shop.io/l.png?a=1&amp;b=&quot;x&quot;" alt="" height="32" ' +
        'referrerpolicy="no-referrer">Shop &lt;b&gt;</span>',
    );
    expect(html).not.toContain('brand-mark');
  });

  it('changes nothing for a page that asks for none of it', () => {
    const html = renderer.render('hello', { name: 'a' });
    expect(html).toContain('<body class="gateway">');
    expect(html).toContain('<span class="brand-mark" aria-hidden="true"></span>');
    expect(html).not.toContain('<img');
  });
});
