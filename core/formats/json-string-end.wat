;; Where a JSON string ends: from its opening quote, the index just past its closing quote, 64 bytes per step.
;; Compiled by `npm run gen` (scripts/gen-wasm.ts) into json-string-end.wasm.gen.ts; json-string-end.ts says why.
;;
;; The body's bytes are copied to memory[0, len) by the caller. A backslash escapes the byte after it (so \"
;; and \\ are passed over); the first quote that is not escaped ends the string. Only those two bytes matter:
;; whatever follows a backslash (n, u1234, ...) is neither.
;;
;; Per 64-byte block: one bit per byte for quotes and for backslashes, then which bytes are escaped, computed
;; for all 64 at once with simdjson's carry trick (a run of backslashes escapes the byte after it when the run
;; is odd; subtracting the run from a mask of odd bits carries through it and flips on that parity). No branch
;; per quote or backslash: a source file has one every ~20 bytes, and branching on each cost more than the
;; scan. The last 0-63 bytes of the body go byte by byte.
(module
  (memory (export "memory") 1)
  (func (export "stringEnd") (param $open i32) (param $len i32) (result i32)
    (local $base i32) (local $skip i32)
    (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128)
    (local $quote v128) (local $backslash v128)
    (local $quotes i64) (local $backslashes i64) (local $next i64) (local $potential i64) (local $code i64)
    (local $escaped i64) (local $ends i64)
    (local.set $base (i32.add (local.get $open) (i32.const 1)))
    (local.set $quote (i8x16.splat (i32.const 0x22)))
    (local.set $backslash (i8x16.splat (i32.const 0x5c)))
    (block $tail
      (loop $block
        (br_if $tail (i32.gt_u (i32.add (local.get $base) (i32.const 64)) (local.get $len)))
        (local.set $v0 (v128.load (local.get $base)))
        (local.set $v1 (v128.load offset=16 (local.get $base)))
        (local.set $v2 (v128.load offset=32 (local.get $base)))
        (local.set $v3 (v128.load offset=48 (local.get $base)))
        (local.set $quotes
          (i64.or
            (i64.or
              (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v0) (local.get $quote))))
              (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v1) (local.get $quote)))) (i64.const 16)))
            (i64.or
              (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v2) (local.get $quote)))) (i64.const 32))
              (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v3) (local.get $quote)))) (i64.const 48)))))
        (local.set $backslashes
          (i64.or
            (i64.or
              (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v0) (local.get $backslash))))
              (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v1) (local.get $backslash)))) (i64.const 16)))
            (i64.or
              (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v2) (local.get $backslash)))) (i64.const 32))
              (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v3) (local.get $backslash)))) (i64.const 48)))))
        ;; $next: 1 when the previous block ended on an escaping backslash (its first byte is escaped).
        ;; A backslash that is itself escaped escapes nothing.
        (local.set $potential (i64.and (local.get $backslashes) (i64.xor (local.get $next) (i64.const -1))))
        ;; Bits of each escaping backslash and of the byte it escapes, from the parity of its run.
        (local.set $code
          (i64.xor
            (i64.sub
              (i64.or (i64.shl (local.get $potential) (i64.const 1)) (i64.const 0xAAAAAAAAAAAAAAAA))
              (local.get $potential))
            (i64.const 0xAAAAAAAAAAAAAAAA)))
        (local.set $escaped (i64.xor (local.get $code) (i64.or (local.get $backslashes) (local.get $next))))
        (local.set $next (i64.shr_u (i64.and (local.get $code) (local.get $backslashes)) (i64.const 63)))
        (local.set $ends (i64.and (local.get $quotes) (i64.xor (local.get $escaped) (i64.const -1))))
        (if (i64.ne (local.get $ends) (i64.const 0))
          (then (return (i32.add (i32.add (local.get $base) (i32.wrap_i64 (i64.ctz (local.get $ends)))) (i32.const 1)))))
        (local.set $base (i32.add (local.get $base) (i32.const 64)))
        (br $block)))
    ;; Bytes before $skip are escaped.
    (local.set $skip (i32.add (local.get $base) (i32.wrap_i64 (local.get $next))))
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
