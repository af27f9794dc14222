'use strict'

// The callback HTTP client resolves each host once, not once per connection.

const { createCachedLookup } = require('../../src/notification/deliver')
const { createEndpointCache } = require('../../src/notification/endpoints')

function countingResolver (addresses = [{ address: '10.0.0.7', family: 4 }, { address: 'fd00::7', family: 6 }]) {
  const calls = []
  const resolve = (host, opts, cb) => { calls.push(host); setImmediate(() => cb(null, addresses)) }
  return { calls, resolve }
}

const lookupOnce = (lookup, host, opts) => new Promise((resolve, reject) => {
  lookup(host, opts, (err, address, family) => (err ? reject(err) : resolve(opts.all ? address : { address, family })))
})

test('concurrent and later connects to one host share one resolution', async () => {
  const { calls, resolve } = countingResolver()
  const lookup = createCachedLookup({ resolve })
  const results = await Promise.all([1, 2, 3].map(() => lookupOnce(lookup, 'dfsp.example', {})))
  await lookupOnce(lookup, 'dfsp.example', { all: true })
  expect(calls).toEqual(['dfsp.example'])
  expect(results[0]).toEqual({ address: '10.0.0.7', family: 4 })
})

test('answers in the form net.connect asks for: all addresses, or one of a family', async () => {
  const { resolve } = countingResolver()
  const lookup = createCachedLookup({ resolve })
  expect(await lookupOnce(lookup, 'h', { all: true })).toHaveLength(2)
  expect(await lookupOnce(lookup, 'h', { family: 6 })).toEqual({ address: 'fd00::7', family: 6 })
})

test('a forgotten or expired host is resolved again', async () => {
  const { calls, resolve } = countingResolver()
  let now = 0
  const lookup = createCachedLookup({ resolve, ttlMs: 1000, now: () => now })
  await lookupOnce(lookup, 'h', {})
  lookup.forget('h')
  await lookupOnce(lookup, 'h', {})
  now = 2000
  await lookupOnce(lookup, 'h', {})
  expect(calls).toEqual(['h', 'h', 'h'])
})

test('endpoints are cached per participant and reloaded when a type is missing', async () => {
  let now = 0
  const loads = []
  let endpoints = { FSPIOP_CALLBACK_URL_TRANSFER_PUT: 'http://a/{{transferId}}' }
  const cache = createEndpointCache({ load: async (p) => { loads.push(p); return { registered: true, endpoints } }, ttlMs: 10000, missReloadMs: 1000, now: () => now })
  await Promise.all([cache.get('a', 'FSPIOP_CALLBACK_URL_TRANSFER_PUT'), cache.get('a', 'FSPIOP_CALLBACK_URL_TRANSFER_PUT')])
  expect(loads).toEqual(['a'])
  expect(await cache.get('a', 'FSPIOP_CALLBACK_URL_TRANSFER_POST')).toEqual({ registered: true, value: null })
  expect(loads).toEqual(['a'])
  endpoints = { ...endpoints, FSPIOP_CALLBACK_URL_TRANSFER_POST: 'http://a/transfers' }
  now = 1500
  expect(await cache.get('a', 'FSPIOP_CALLBACK_URL_TRANSFER_POST')).toEqual({ registered: true, value: 'http://a/transfers' })
  expect(loads).toEqual(['a', 'a'])
})

test('a failed reload falls back to the stale entry', async () => {
  let now = 0
  let fail = false
  const cache = createEndpointCache({ load: async () => { if (fail) throw new Error('db down'); return { registered: true, endpoints: { T: 'http://x' } } }, now: () => now })
  await cache.get('a', 'T')
  fail = true
  now = 60000
  expect(await cache.get('a', 'T')).toEqual({ registered: true, value: 'http://x' })
  await expect(cache.get('b', 'T')).rejects.toThrow('db down')
})
