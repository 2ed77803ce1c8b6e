// The fenced blocks of a Markdown page that hold shell commands, and the marker above each that says
// why the docs test does not run it (docs/tests.md, "Commands in the documentation").

/** Blocks in these languages (or in none) are commands unless a marker says otherwise. */
export const COMMAND_LANGUAGES = new Set(['', 'sh', 'bash', 'shell', 'console']);

/** `<!-- docs-command: not run: <reason> -->` or `<!-- docs-command: not a command: <what it shows> -->`. */
export type MarkerKind = 'not run' | 'not a command';
const MARKER = /^<!--\s*docs-command:(.*?)-->$/;
const MARKER_KINDS: readonly MarkerKind[] = ['not run', 'not a command'];
/** A reason says something: three words at least ("needs a cluster", not "skip"). */
const REASON_MIN_WORDS = 3;

export interface FencedBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  language: string;
  /** The lines between the fences, the fence's indentation taken off. */
  text: string;
  marker?: { kind: MarkerKind; reason: string };
}

export interface PageReading {
  blocks: FencedBlock[];
  /** Markers that break the convention: each message names the file, the line and what to change. */
  problems: string[];
}

/**
 * Reads every fenced block (``` or ~~~, at any indentation, as in list items) of a page, with the
 * marker on the line right above its opening fence. A marker anywhere else, of an unknown kind or
 * without a reason, or above a block that is not a command block is a problem.
 */
export function readFencedBlocks(file: string, markdown: string): PageReading {
  const lines = markdown.split(/\r?\n/);
  const blocks: FencedBlock[] = [];
  const problems: string[] = [];
  const usedMarkers = new Set<number>();
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent = '', fence = '', info = ''] = open;
    const close = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end]!)) end += 1;
    const text = lines
      .slice(i + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()))
      .join('\n');
    const block: FencedBlock = { file, line: i + 1, language: info.toLowerCase(), text };
    const above = i > 0 ? parseMarker(lines[i - 1]!) : undefined;
    if (above) {
      usedMarkers.add(i - 1);
      if (typeof above === 'string') problems.push(`${file}:${i}: ${above}`);
      else if (!COMMAND_LANGUAGES.has(block.language))
        problems.push(`${file}:${i}: a docs-command marker above a \`${info}\` block, which is never run: remove it`);
      else block.marker = above;
    }
    blocks.push(block);
    i = end;
  }
  // A marker is a line of its own; the convention quoted in prose (docs/tests.md) is none.
  lines.forEach((line, index) => {
    if (!usedMarkers.has(index) && /^<!--\s*docs-command/.test(line.trim()))
      problems.push(`${file}:${index + 1}: a docs-command marker must be on the line right above a block's opening fence`);
  });
  return { blocks, problems };
}

/** The marker a line is, a message when it is a broken one, or undefined when it is no marker. */
function parseMarker(line: string): FencedBlock['marker'] | string | undefined {
  const match = MARKER.exec(line.trim());
  if (!match) return /<!--\s*docs-command/.test(line) ? 'a docs-command marker must be a whole line: <!-- docs-command: … -->' : undefined;
  const body = match[1]!.trim();
  const kind = MARKER_KINDS.find((candidate) => body.startsWith(`${candidate}:`));
  if (!kind) return `a docs-command marker says "${MARKER_KINDS.join('" or "')}", then a colon and the reason (got "${body}")`;
  const reason = body.slice(kind.length + 1).trim();
  if (reason.split(/\s+/).filter(Boolean).length < REASON_MIN_WORDS)
    return `a "${kind}" marker needs its reason, ${REASON_MIN_WORDS} words at least (got "${reason}")`;
  return { kind, reason };
}

/** A block the test must run: a command block with no marker. */
export const isRunnable = (block: FencedBlock): boolean => COMMAND_LANGUAGES.has(block.language) && !block.marker;

export interface TranscriptStep {
  command: string;
  /** The lines the page shows the command answering; empty when it shows none. */
  expected: string[];
}

/**
 * A `console` block as steps: each `$ ` line is a command (a line ending in `\` goes on on the next
 * one), and the lines up to the next `$ ` are what the page shows it printing.
 */
export function consoleSteps(block: FencedBlock): TranscriptStep[] {
  const steps: TranscriptStep[] = [];
  let continuing = false;
  for (const line of block.text.split('\n')) {
    const current = steps.at(-1);
    if (continuing && current) {
      current.command += `\n${line}`;
      continuing = line.endsWith('\\');
    } else if (line.startsWith('$ ')) {
      steps.push({ command: line.slice(2), expected: [] });
      continuing = line.endsWith('\\');
    } else if (line.trim() !== '') {
      if (!current) throw new Error(`${block.file}:${block.line}: a console block's output before its first "$ " command`);
      current.expected.push(line);
    }
  }
  if (steps.length === 0) throw new Error(`${block.file}:${block.line}: a console block without a "$ " command; mark it "not a command"`);
  return steps;
}

/**
 * What an expected output must match: each line the page shows, somewhere in the output (a page
 * shows some headers of a response, in any order, or wraps one JSON line), exact but for its
 * elisions: a run of characters ending in `…` (`0x275BD9c6…`, `932bb47b-…`, `?…`) stands for any value.
 */
export function expectedOutputPatterns(expected: readonly string[]): RegExp[] {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return expected.map(
    (line) =>
      new RegExp(
        line
          .trim()
          .split(/[^\s"'&;,=/?:()<>[\]{}]*…/)
          .map(literal)
          .join('[^\\n]*?'),
      ),
  );
}
