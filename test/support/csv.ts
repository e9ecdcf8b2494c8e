/**
 * A strict RFC 4180 reader for tests: records end with CRLF (a bare LF or CR outside quotes is an error),
 * quoted fields may hold commas, CR, LF and doubled quotes. An unquoted empty field reads as null and a
 * quoted empty field as '' (the export writes NULL and '' that way).
 */
export const parseCsv = (text: string): (string | null)[][] => {
  const records: (string | null)[][] = [];
  let record: (string | null)[] = [];
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`CSV: ${why} at offset ${i}`);
  };
  while (i < text.length) {
    let value: string | null;
    if (text[i] === '"') {
      let v = '';
      i += 1;
      for (;;) {
        if (i >= text.length) fail('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            v += '"';
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        v += text[i];
        i += 1;
      }
      value = v;
    } else {
      let end = i;
      while (end < text.length && !',\r\n"'.includes(text[end]!)) end += 1;
      if (text[end] === '"') fail('quote inside an unquoted field');
      value = end === i ? null : text.slice(i, end);
      i = end;
    }
    record.push(value);
    if (text[i] === ',') {
      i += 1;
      continue;
    }
    if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
      continue;
    }
    fail(`expected "," or CRLF, got ${JSON.stringify(text[i] ?? 'end of input')}`);
  }
  if (record.length > 0) fail('last record not terminated by CRLF');
  return records;
};
