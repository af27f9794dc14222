'use strict'

const { newClusterId } = require('../../scripts/stack/kafka')

describe('the local Kafka cluster id', () => {
  test('is 16 bytes in base64url, 22 characters', () => {
    const id = newClusterId()
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(Buffer.from(id, 'base64url')).toHaveLength(16)
  })

  test('never starts with "-", which the storage tool would read as an option', () => {
    // 0xf8 encodes to '-' as the first base64url character: the first draw
    // would start with '-', so the second is the one returned.
    const draws = [Buffer.alloc(16, 0xf8), Buffer.alloc(16, 0x01)]
    let calls = 0
    const id = newClusterId(() => draws[calls++])
    expect(Buffer.alloc(16, 0xf8).toString('base64url')).toMatch(/^-/)
    expect(calls).toBe(2)
    expect(id).toBe(Buffer.alloc(16, 0x01).toString('base64url'))
  })
})
