import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder } from '../support/source-files.js';

const srcDir = join(import.meta.dirname, '../../src');
const MAX_LINE = 140;

type Prose = { nonBlank: number; comments: string[] };

/** Non-blank lines, and the lines that are comments: `//` lines and every line of a block opened at a line's start. */
const prose = (text: string): Prose => {
  const out: Prose = { nonBlank: 0, comments: [] };
  let inBlock = false;
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t === '') continue;
    out.nonBlank += 1;
    if (inBlock || t.startsWith('//') || t.startsWith('/*')) {
      out.comments.push(t);
      inBlock = (inBlock || t.startsWith('/*')) && !t.includes('*/');
    }
  }
  return out;
};

const files = filesUnder(srcDir, /\.tsx?$/).map((file) => ({ name: relative(srcDir, file), text: readFileSync(file, 'utf8') }));

describe('the prose of src', () => {
  it('when a file is counted, then line comments and every line of a block comment count, code and blank lines do not', () => {
    const sample = ['/**', ' * A block', ' */', 'const a = 1; // trailing', '', '// a line', "const b = '/* not a comment';"];
    expect(prose(sample.join('\n'))).toEqual({ nonBlank: 6, comments: ['/**', '* A block', '*/', '// a line'] });
  });

  it(`when src is read, then no line is longer than ${MAX_LINE} characters`, () => {
    const long = files.flatMap(({ name, text }) =>
      text.split('\n').flatMap((line, i) => (line.length > MAX_LINE ? [`${name}:${i + 1} (${line.length})`] : [])),
    );
    expect(long).toEqual([]);
  });

  it('when src is read, then no comment refers to an issue: comments say why, the history is in git', () => {
    const references = files.flatMap(({ name, text }) =>
      prose(text).comments.flatMap((c) => (/\b(issues?|tickets?)\s*#?\d+/i.test(c) ? [`${name}: ${c}`] : [])),
    );
    expect(references).toEqual([]);
  });

  // How many comments src needs is a reviewer's judgement, not a share; what a comment may not hold is checked here.
  it('when src is read, then no comment tells who did what when: no work-session or round history', () => {
    const history = /\b([a-z]+(teenth|tieth)|twenty-[a-z]+|first|second|third|\d+(st|nd|rd|th)) (session|round)\b/i;
    const told = files.flatMap(({ name, text }) => prose(text).comments.flatMap((c) => (history.test(c) ? [`${name}: ${c}`] : [])));
    expect(told).toEqual([]);
  });
});
