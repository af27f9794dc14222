'use strict'

// A stop waits for the chunks in flight (run-consumer.js): idle() resolves
// once nothing runs, whether the work succeeded or failed.

const { createInFlight } = require('../../src/kafka/in-flight')

test('idle resolves at once with nothing in flight, and only after the last work ends otherwise', async () => {
  const work = createInFlight()
  await work.idle()
  const releases = []
  const running = [1, 2].map(() => work.run(() => new Promise((resolve) => releases.push(resolve))))
  let idle = false
  const waiting = work.idle().then(() => { idle = true })
  releases[0]('a')
  await running[0]
  await Promise.resolve()
  expect(idle).toBe(false)
  releases[1]('b')
  expect(await Promise.all(running)).toEqual(['a', 'b'])
  await waiting
  expect(idle).toBe(true)
})

test('work that fails still leaves, and its error reaches the caller', async () => {
  const work = createInFlight()
  await expect(work.run(async () => { throw new Error('transaction failed') })).rejects.toThrow('transaction failed')
  await work.idle()
})
