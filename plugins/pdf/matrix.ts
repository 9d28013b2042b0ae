/** PDF's transformation matrices [a b c d e f] (row vectors: a point is [x y 1] x M). */
export type Matrix = [number, number, number, number, number, number];

/** a x b: the transformation `a`, then `b` (as `cm` puts its operands before the current one). */
export function multiply(a: Matrix, b: Matrix): Matrix {
  return [
    a[0] * b[0] + a[1] * b[2],
    a[0] * b[1] + a[1] * b[3],
    a[2] * b[0] + a[3] * b[2],
    a[2] * b[1] + a[3] * b[3],
    a[4] * b[0] + a[5] * b[2] + b[4],
    a[4] * b[1] + a[5] * b[3] + b[5],
  ];
}
