/** JSON text as Python's json module (through DRF's renderer) writes it: compact, UTF-8, floats in repr form. */
import { skipString } from './raw-json.js';

/**
 * A float as Python's `repr` writes it: shortest round-trip digits, always with a fraction or an
 * exponent (`0.0`, `12.5`, `1e+16`, `1.5e-05`). NaN and infinities become `null`, as NeuroVault's
 * serializer turns them into None.
 */
export function pythonFloat(value: number): string {
  if (!Number.isFinite(value)) return 'null';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const magnitude = Math.abs(value);
  // Where both languages write plain decimals, JavaScript's shortest digits are Python's.
  if (magnitude >= 1e-4 && magnitude < 1e16) {
    const text = String(value);
    return Number.isInteger(value) ? `${text}.0` : text;
  }
  const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const exponent = Number(exponentText);
  const decimalPoint = exponent + 1;
  let text: string;
  if (decimalPoint > -4 && decimalPoint <= 16) {
    if (decimalPoint <= 0) text = `0.${'0'.repeat(-decimalPoint)}${digits}`;
    else if (decimalPoint >= digits.length) text = `${digits}${'0'.repeat(decimalPoint - digits.length)}.0`;
    else text = `${digits.slice(0, decimalPoint)}.${digits.slice(decimalPoint)}`;
  } else {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const sign = exponent < 0 ? '-' : '+';
    text = `${digits[0]}${fraction}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return negative ? `-${text}` : text;
}

/** A JSON string literal; identical to Python's `json.dumps(s, ensure_ascii=False)` for well-formed text. */
export function jsonString(value: string): string {
  return JSON.stringify(value);
}

/** A JSON string literal, or `null` for null. */
export function jsonNullableString(value: string | null): string {
  return value === null ? 'null' : JSON.stringify(value);
}

/**
 * Re-indents compact JSON text the way `json.dumps(indent=4, ensure_ascii=False)` lays it out,
 * keeping every literal (number spelling included) byte for byte.
 */
export function indentJson(compact: string, indent = 4): string {
  let out = '';
  let depth = 0;
  let i = 0;
  const newline = (): string => `\n${' '.repeat(depth * indent)}`;
  while (i < compact.length) {
    const ch = compact[i] as string;
    if (ch === '"') {
      const end = skipString(compact, i);
      out += compact.slice(i, end);
      i = end;
      continue;
    }
    if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']';
      if (compact[i + 1] === close) {
        out += ch + close;
        i += 2;
        continue;
      }
      depth++;
      out += ch + newline();
    } else if (ch === '}' || ch === ']') {
      depth--;
      out += newline() + ch;
    } else if (ch === ',') {
      out += `,${newline()}`;
    } else if (ch === ':') {
      out += ': ';
    } else {
      out += ch;
    }
    i++;
  }
  return out;
}

/** A JSON string literal as Python's `json.dumps(s)` writes it (ensure_ascii): every character past `~` escaped. */
export function asciiJsonString(value: string): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * JSON text as Python writes what `json.loads` read of it with `json.dumps`'s defaults: `", "` and `": "` between
 * members, strings in ASCII, a number with a fraction or an exponent as a float's repr, an integer as written.
 */
export function pythonDumps(text: string): string {
  let out = '';
  for (let i = 0; i < text.length;) {
    const ch = text[i]!;
    if (ch === '"') {
      const end = skipString(text, i);
      out += asciiJsonString(JSON.parse(text.slice(i, end)) as string);
      i = end;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(text)?.[0];
    if (number !== undefined) {
      out += /[.eE]/.test(number) ? pythonFloat(Number(number)) : number;
      i += number.length;
      continue;
    }
    if (ch === ',' || ch === ':') out += `${ch} `;
    else if (!/\s/.test(ch)) out += ch;
    i++;
  }
  return out;
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
