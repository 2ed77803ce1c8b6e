/**
 * Reads CSV text back as an accountant's tool would (RFC 4180): records end with CRLF (a bare LF
 * is taken too), a field in double quotes may hold commas, quotes (doubled) and line breaks. Written
 * apart from the ledger's own writer, so a test that reads its files does not grade it by itself.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (char === '"') quoted = false;
      else field += char;
      i += 1;
      continue;
    }
    if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\n' || (char === '\r' && text[i + 1] === '\n')) {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      if (char === '\r') i += 1;
    } else if (char === '"') throw new Error(`a quote inside an unquoted field at ${i}`);
    else field += char;
    i += 1;
  }
  if (quoted) throw new Error('the text ends inside a quoted field');
  if (field !== '' || record.length > 0) throw new Error('the last record has no line end');
  return records;
}

/** CSV text as objects keyed by its header row. */
export function parseCsvObjects(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new Error('no header row');
  return rows.map((row) => {
    if (row.length !== header.length) throw new Error(`a row of ${row.length} fields under a header of ${header.length}`);
    return Object.fromEntries(header.map((name, i) => [name, row[i]!]));
  });
}
