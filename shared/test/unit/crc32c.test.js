'use strict'

// The record batches' checksum (crc32c.js) is kafkajs's CRC-32C, computed
// eight bytes at a time: the same value on every length and offset.

const crypto = require('node:crypto')
const kafkajsCrc32C = require('kafkajs/src/protocol/recordBatch/crc32C')
const { crc32c } = require('../../src/kafka/crc32c')

test('the standard check value: CRC-32C of "123456789" is 0xE3069283', () => {
  expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283)
  expect(crc32c(Buffer.alloc(0))).toBe(0)
})

test('equals kafkajs\'s byte-at-a-time CRC-32C on every length from 0 to 300 bytes', () => {
  const mismatches = []
  for (let n = 0; n <= 300; n++) {
    const buf = crypto.randomBytes(n)
    if (crc32c(buf) !== kafkajsCrc32C(buf)) mismatches.push(n)
  }
  expect(mismatches).toEqual([])
})

test('equals it on large buffers and on views that start and end off an eight-byte boundary', () => {
  const big = crypto.randomBytes(70013)
  for (const [from, to] of [[0, big.length], [1, 65537], [3, 70010], [7, 15]]) {
    const view = big.subarray(from, to)
    expect({ from, to, crc: crc32c(view) }).toEqual({ from, to, crc: kafkajsCrc32C(view) })
  }
  // All ones and all zeros exercise every table's extreme entries.
  for (const fill of [0x00, 0xff]) {
    const buf = Buffer.alloc(4099, fill)
    expect(crc32c(buf)).toBe(kafkajsCrc32C(buf))
  }
})
