'use strict'

const { benchBufferPool } = require('../../src/bench/sut')

test('the bench runs MariaDB with a 4 GB buffer pool, or a larger one STACK_DB_BUFFER_POOL asks for', () => {
  expect(benchBufferPool('1G')).toBe('4G')
  expect(benchBufferPool('4096M')).toBe('4G')
  expect(benchBufferPool('12G')).toBe('12G')
  expect(benchBufferPool('8192M')).toBe('8192M')
  expect(() => benchBufferPool('lots')).toThrow('STACK_DB_BUFFER_POOL: lots is not a size like 512M or 2G')
})
