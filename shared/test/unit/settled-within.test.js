'use strict'

const { settledWithin } = require('../../src/settled-within')

test('true when the promise settles in time, either way; false when time runs out', async () => {
  expect(await settledWithin(Promise.resolve(1), 50)).toBe(true)
  expect(await settledWithin(Promise.reject(new Error('down')), 50)).toBe(true)
  expect(await settledWithin(new Promise(() => {}), 10)).toBe(false)
})
