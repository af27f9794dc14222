'use strict'

// Request fixtures for the FSPIOP /transfers API: valid headers and bodies
// that a test changes one thing in, and the shape of an error answer.

const crypto = require('node:crypto')

const MEDIA_TYPE = 'application/vnd.interoperability.transfers+json'
const versioned = (version = '1.1') => `${MEDIA_TYPE};version=${version}`
// A fixed, real RFC 1123 date: nothing here depends on the clock.
const DATE = new Date(Date.UTC(2026, 0, 5, 10, 0, 0)).toUTCString()

/** @param {Record<string, string | undefined>} [overrides] undefined removes a header */
function transferHeaders (overrides = {}) {
  return {
    'content-type': versioned(),
    accept: versioned(),
    date: DATE,
    'fspiop-source': 'payerfsp',
    'fspiop-destination': 'payeefsp',
    ...overrides
  }
}

/** @param {Record<string, unknown>} [overrides] */
function prepareBody (overrides = {}) {
  return {
    transferId: crypto.randomUUID(),
    payerFsp: 'payerfsp',
    payeeFsp: 'payeefsp',
    amount: { amount: '10.5', currency: 'USD' },
    ilpPacket: 'AYIBgQAAAAAAAASwNGxldmVsb25lLmRmc3AxLm1lci45T2RTOF',
    condition: 'GRzLaTP7DJ9t4P-a_BA0WA9wzzlsugf00-Tn6kESAfM',
    expiration: '2030-01-01T00:00:00.000Z',
    ...overrides
  }
}

/** @param {Record<string, unknown>} [overrides] */
function fulfilBody (overrides = {}) {
  return {
    fulfilment: 'UNlJ98hZTY_dsw0cAqw4i_UN3v4utt7CZFB4yfLbVFA',
    completedTimestamp: '2026-01-05T10:00:01.123Z',
    transferState: 'COMMITTED',
    ...overrides
  }
}

/**
 * @param {string} errorCode
 * @param {string} errorDescription
 * @param {object} [extensionList]
 */
function errorBody (errorCode, errorDescription, extensionList) {
  return { errorInformation: { errorCode, errorDescription, ...(extensionList ? { extensionList } : {}) } }
}

module.exports = { MEDIA_TYPE, versioned, DATE, transferHeaders, prepareBody, fulfilBody, errorBody }
