/**
 * CRC-32 (the gzip polynomial) of a text followed by many zero bytes, in O(log n) time: zlib's crc32_combine
 * arithmetic (multiplication modulo the polynomial, x^(2^k) by squaring). The bundled service pads its files with
 * zeros inside the gzip stream and writes their CRC in the trailer without reading a gigabyte of zeros.
 */
import { crc32 } from 'node:zlib';

const POLY = 0xedb88320;

/** a·b modulo the CRC polynomial, in the reflected bit order CRC-32 uses. */
function multiplyModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if ((a & m) !== 0) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = (b & 1) !== 0 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0..63. */
const X2N: number[] = (() => {
  const table = [0x40000000];
  for (let k = 1; k < 64; k++) table.push(multiplyModP(table[k - 1]!, table[k - 1]!));
  return table;
})();

/** x^(8n) modulo the polynomial: what n zero bytes multiply the CRC register by. */
function zeroBytesOperator(n: number): number {
  let p = 0x80000000; // x^0
  let k = 3; // 2^3 bits a byte
  for (let rest = n; rest > 0; rest = Math.floor(rest / 2), k++) if (rest % 2 === 1) p = multiplyModP(X2N[k & 63]!, p);
  return p;
}

/** The CRC-32 of `prefix` followed by `zeros` zero bytes, as zlib.crc32 would compute it over the whole. */
export function crc32WithZeros(prefix: Uint8Array, zeros: number): number {
  const register = (crc32(prefix) ^ 0xffffffff) >>> 0; // CRC-32 inverts the register before and after
  return (multiplyModP(zeroBytesOperator(zeros), register) ^ 0xffffffff) >>> 0;
}
