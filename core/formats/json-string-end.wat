;; Where a JSON string ends: from its opening quote, the index just past its closing quote, 16 bytes at a time.
;; Compiled by `npm run gen` (scripts/gen-wasm.ts) into json-string-end.wasm.gen.ts; json-string-end.ts says why.
;;
;; The body's bytes are copied to memory[0, len) by the caller. A byte at or after $skip that is a backslash
;; escapes the byte after it (so \" and \\ are passed over); the first quote at or after $skip ends the string.
;; Only those two bytes matter: whatever follows a backslash (n, u1234, ...) is neither.
(module
  (memory (export "memory") 1)
  (func (export "stringEnd") (param $open i32) (param $len i32) (result i32)
    (local $base i32) (local $skip i32) (local $v v128) (local $quotes i32) (local $stops i32) (local $k i32) (local $p i32)
    (local.set $base (i32.add (local.get $open) (i32.const 1)))
    (local.set $skip (local.get $base))
    (block $tail
      (loop $block
        ;; Whole 16-byte blocks while they fit below $len; the rest byte by byte.
        (br_if $tail (i32.gt_u (i32.add (local.get $base) (i32.const 16)) (local.get $len)))
        (local.set $v (v128.load (local.get $base)))
        ;; One bit per byte: quotes, and quotes or backslashes.
        (local.set $quotes (i8x16.bitmask (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x22)))))
        (local.set $stops (i32.or (local.get $quotes) (i8x16.bitmask (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x5c))))))
        (block $next
          (loop $bits
            (br_if $next (i32.eqz (local.get $stops)))
            (local.set $k (i32.ctz (local.get $stops)))
            (local.set $p (i32.add (local.get $base) (local.get $k)))
            (if (i32.ge_u (local.get $p) (local.get $skip))
              (then
                (if (i32.and (i32.shr_u (local.get $quotes) (local.get $k)) (i32.const 1))
                  (then (return (i32.add (local.get $p) (i32.const 1)))))
                (local.set $skip (i32.add (local.get $p) (i32.const 2)))))
            ;; Clear the lowest set bit.
            (local.set $stops (i32.and (local.get $stops) (i32.sub (local.get $stops) (i32.const 1))))
            (br $bits)))
        (local.set $base (i32.add (local.get $base) (i32.const 16)))
        (br $block)))
    (loop $byte
      (if (i32.lt_u (local.get $base) (local.get $len))
        (then
          (if (i32.ge_u (local.get $base) (local.get $skip))
            (then
              (if (i32.eq (i32.load8_u (local.get $base)) (i32.const 0x22))
                (then (return (i32.add (local.get $base) (i32.const 1)))))
              (if (i32.eq (i32.load8_u (local.get $base)) (i32.const 0x5c))
                (then (local.set $skip (i32.add (local.get $base) (i32.const 2)))))))
          (local.set $base (i32.add (local.get $base) (i32.const 1)))
          (br $byte))))
    ;; Not closed before $len.
    (i32.const -1)))
