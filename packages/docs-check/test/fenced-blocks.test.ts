import { consoleSteps, expectedOutputPatterns, isRunnable, readFencedBlocks } from './support/fenced-blocks';

const page = (...lines: string[]) => readFencedBlocks('page.md', lines.join('\n'));

describe('readFencedBlocks', () => {
  it('reads every fence, tagged or not, at any indentation, with its marker', () => {
    const { blocks, problems } = page(
      '# Page',
      '```sh',
      'pnpm gateway migrate',
      '```',
      '- a list item:',
      '  <!-- docs-command: not a command: what the CLI prints -->',
      '  ```',
      '  deposit 4711  needs_attention',
      '  ```',
      '~~~~json',
      '{"a":1}',
      '```',
      '~~~~',
    );
    expect(problems).toEqual([]);
    expect(blocks).toEqual([
      { file: 'page.md', line: 2, language: 'sh', text: 'pnpm gateway migrate' },
      {
        file: 'page.md',
        line: 7,
        language: '',
        text: 'deposit 4711  needs_attention',
        marker: { kind: 'not a command', reason: 'what the CLI prints' },
      },
      { file: 'page.md', line: 10, language: 'json', text: '{"a":1}\n```' },
    ]);
    expect(blocks.map(isRunnable)).toEqual([true, false, false]);
  });

  it('runs an untagged block without a marker, and a marked one never', () => {
    const { blocks } = page(
      '```',
      'gateway queues',
      '```',
      '<!-- docs-command: not run: needs a Kubernetes cluster -->',
      '```bash',
      'kubectl apply -k infra/k8s/overlays/production',
      '```',
    );
    expect(blocks.map(isRunnable)).toEqual([true, false]);
    expect(blocks[1]!.marker).toEqual({ kind: 'not run', reason: 'needs a Kubernetes cluster' });
  });

  it.each([
    ['no reason', '<!-- docs-command: not run: -->', /needs its reason/],
    ['a reason of two words', '<!-- docs-command: not run: needs cluster -->', /3 words at least/],
    ['an unknown kind', '<!-- docs-command: skip: needs a cluster -->', /"not run" or "not a command"/],
    ['no kind', '<!-- docs-command: needs a Kubernetes cluster -->', /"not run" or "not a command"/],
    ['a marker that is not a whole line', 'Run: <!-- docs-command: not run: needs a cluster -->', /a whole line/],
  ])('refuses a marker with %s', (_case, marker, message) => {
    const { blocks, problems } = page('text', marker, '```sh', 'kubectl get pods', '```');
    expect(problems).toEqual([expect.stringMatching(message)]);
    expect(problems[0]).toMatch(/^page\.md:2: /);
    // A broken marker excuses nothing: the block is still run.
    expect(blocks.map(isRunnable)).toEqual([true]);
  });

  it('refuses a marker that is not right above a fence, or above a block that is never run', () => {
    const { problems } = page(
      '<!-- docs-command: not run: needs a Kubernetes cluster -->',
      '',
      '```sh',
      'kubectl get pods',
      '```',
      'Mark it with `<!-- docs-command: not run: needs a cluster -->` on the line above.',
      '<!-- docs-command: not a command: an answer of the API -->',
      '```json',
      '{}',
      '```',
    );
    expect(problems).toEqual([
      'page.md:7: a docs-command marker above a `json` block, which is never run: remove it',
      "page.md:1: a docs-command marker must be on the line right above a block's opening fence",
    ]);
  });
});

describe('consoleSteps', () => {
  it('splits a console block into commands and what each prints, a trailing backslash going on', () => {
    const [block] = page(
      '```console',
      "$ curl -s 'http://127.0.0.1:3100/control/convert.php?value=150&from=usd'",
      '{"status":"success","value_coin":"150.00","exchange_rate":"1"}',
      '$ gateway ledger export --payout-address 0x5290…9ee7 \\',
      '    --from 2026-11-01 --to 2026-12-01',
      '',
      '$ gateway queues',
      '```',
    ).blocks;
    expect(consoleSteps(block!)).toEqual([
      {
        command: "curl -s 'http://127.0.0.1:3100/control/convert.php?value=150&from=usd'",
        expected: ['{"status":"success","value_coin":"150.00","exchange_rate":"1"}'],
      },
      { command: 'gateway ledger export --payout-address 0x5290…9ee7 \\\n    --from 2026-11-01 --to 2026-12-01', expected: [] },
      { command: 'gateway queues', expected: [] },
    ]);
  });

  it('refuses a transcript without a command: it would run nothing', () => {
    const [block] = page('```console', '{"status":"success"}', '```').blocks;
    expect(() => consoleSteps(block!)).toThrow('page.md:1: a console block\'s output before its first "$ " command');
    const [empty] = page('```console', '', '```').blocks;
    expect(() => consoleSteps(empty!)).toThrow('page.md:1: a console block without a "$ " command; mark it "not a command"');
  });

  it('refuses output before the first command', () => {
    const [block] = page('```console', 'HTTP/1.1 200 OK', '$ curl -si http://127.0.0.1:3100/healthz', '```').blocks;
    expect(() => consoleSteps(block!)).toThrow('page.md:1: a console block\'s output before its first "$ " command');
  });
});

describe('expectedOutputPatterns', () => {
  const matches = (output: string, expected: string[]) => expectedOutputPatterns(expected).every((line) => line.test(output));
  const wallet = ['{"address_in":"local1.Jf…","polygon_address_in":"0x275BD9c6…","callback_url":"https://shop.io/ipn?order_id=1234"}'];

  it('takes a value ending in … for any value, and the rest exactly', () => {
    expect(
      matches('{"address_in":"local1.Qx9-_a","polygon_address_in":"0xAbCd","callback_url":"https://shop.io/ipn?order_id=1234"}', wallet),
    ).toBe(true);
    expect(
      matches('{"address_in":"local1.Qx9","polygon_address_in":"0xAbCd","callback_url":"https://shop.io/ipn?order_id=9"}', wallet),
    ).toBe(false);
    // The keys in the page's order.
    expect(
      matches('{"polygon_address_in":"0xAbCd","address_in":"local1.Qx9","callback_url":"https://shop.io/ipn?order_id=1234"}', wallet),
    ).toBe(false);
  });

  it('finds each line anywhere in the output: some headers of a response, one JSON line wrapped', () => {
    const headers = ['HTTP/1.1 302 Found', "content-security-policy: default-src 'self';…", 'x-frame-options: DENY'];
    expect(matches("HTTP/1.1 302 Found\nx-frame-options: DENY\ncontent-security-policy: default-src 'self';img-src data:\n", headers)).toBe(
      true,
    );
    expect(matches("HTTP/1.1 302 Found\ncontent-security-policy: default-src 'none'\nx-frame-options: DENY\n", headers)).toBe(false);
    expect(matches('HTTP/1.1 200 OK\nx-frame-options: DENY', ['HTTP/1.1 302 Found'])).toBe(false);
    const wrapped = ['{"status":"success","payment_id":"9…",', ' "checkout_link":"http://h/p?key=Qm9…"}'];
    expect(matches('{"status":"success","payment_id":"1b7e","checkout_link":"http://h/p?key=abc"}', wrapped)).toBe(true);
    expect(matches('{"status":"success","payment_id":"1b7e","checkout_url":"http://h/p?key=abc"}', wrapped)).toBe(false);
  });
});
