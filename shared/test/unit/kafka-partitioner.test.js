'use strict'

// The producers' partitioner against kafkajs's DefaultPartitioner (the Java
// client's murmur2): the same partition for every key, as strings and as
// Buffers, of every length and for every partition count; a message's own
// partition wins; keyless messages go round robin over the partitions that
// have a leader.

const crypto = require('node:crypto')
const kafkajsDefaultPartitioner = require('kafkajs/src/producer/partitioners/default')
const { murmur2, javaCompatiblePartitioner } = require('../../src/kafka/partitioner')
const kafkajsMurmur2 = require('kafkajs/src/producer/partitioners/default/murmur2')

const metadata = (/** @type {number} */ n, leaderless = []) => Array.from({ length: n }, (_, i) => ({ partitionId: i, leader: leaderless.includes(i) ? -1 : 0 }))

test('murmur2 is kafkajs\'s (and so the Java client\'s) for keys of every length and content', () => {
  const keys = [Buffer.alloc(0), Buffer.from('a'), Buffer.from('ab'), Buffer.from('abc'), Buffer.from('abcd'), Buffer.from('payerfsp'), Buffer.from('ключ 💸')]
  for (let i = 0; i < 3000; i++) keys.push(crypto.randomBytes(i % 67))
  for (const key of keys) expect(murmur2(key)).toBe(kafkajsMurmur2(key))
})

test('the same partition as kafkajs\'s DefaultPartitioner for string and Buffer keys and every partition count', () => {
  const ours = javaCompatiblePartitioner()
  const theirs = kafkajsDefaultPartitioner()
  const keys = ['payerfsp', 'payeefsp', crypto.randomUUID(), '', 'ü', ...Array.from({ length: 500 }, () => crypto.randomUUID())]
  for (const partitions of [1, 2, 3, 6, 7, 12, 64]) {
    const partitionMetadata = metadata(partitions)
    for (const key of keys) {
      for (const k of [key, Buffer.from(key)]) {
        const args = { topic: 't', partitionMetadata, message: { key: k, value: 'v' } }
        expect(ours(/** @type {any} */ (args))).toBe(theirs(/** @type {any} */ (args)))
      }
    }
  }
})

test('a message that names its partition goes there, key or not', () => {
  const partition = javaCompatiblePartitioner()
  expect(partition(/** @type {any} */ ({ topic: 't', partitionMetadata: metadata(6), message: { key: 'payerfsp', partition: 4, value: 'v' } }))).toBe(4)
  expect(partition(/** @type {any} */ ({ topic: 't', partitionMetadata: metadata(6), message: { partition: 0, value: 'v' } }))).toBe(0)
})

test('keyless messages go round robin over the partitions with a leader, per topic', () => {
  const partition = javaCompatiblePartitioner()
  const partitionMetadata = metadata(4, [2])
  const picks = Array.from({ length: 9 }, () => partition(/** @type {any} */ ({ topic: 'a', partitionMetadata, message: { value: 'v' } })))
  expect(picks).not.toContain(2)
  // Each of the three with a leader in turn.
  expect(new Set(picks.slice(0, 3))).toEqual(new Set([0, 1, 3]))
  expect(picks.slice(3)).toEqual([...picks.slice(0, 3), ...picks.slice(0, 3)])
  // Without any leader, still a partition of the topic.
  const none = partition(/** @type {any} */ ({ topic: 'b', partitionMetadata: metadata(3, [0, 1, 2]), message: { value: 'v' } }))
  expect([0, 1, 2]).toContain(none)
})
