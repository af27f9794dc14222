'use strict'

// Every error code of the FSPIOP API (API Definition v1.1, section 7.6), plus
// 3040, which Mojaloop's account lookup uses. Keys and descriptions follow
// Mojaloop (central-services-error-handling) so that errorDescription on the
// wire reads the same as from a Mojaloop hub; the one key renamed is 5400,
// PAYEE_BLOCKED_ERROR (Mojaloop: GENERIC_PAYEE_BLOCKED_ERROR), to pair with
// 4400 PAYER_BLOCKED_ERROR. docs/errors.md lists this table and a unit test
// keeps the two identical: after an edit here run `node scripts/docs-errors.js --write`.
//
// httpStatus is the status used when the error is answered synchronously, to
// the HTTP request itself; errors sent later in an error callback travel in a
// PUT whose status is the receiver's business. Where it departs from "400 for
// client, payer and payee errors, 500 for server errors":
// - 1000, 1001, 2003, 2005: 503. Mojaloop answers 10xx with 503; "busy" and
//   "unavailable" are what 503 means, and it tells any HTTP client the request
//   may be retried, as the error's retriable flag does.
// - 2002: 501. 3001: 406 (Accept/Content-Type version). 3002: 404.
// - 32xx "... ID not found" where the id names the requested resource
//   (/transfers/{ID}, /quotes/{ID}, /parties/{Type}/{ID}, ...): 404. 3201-3203
//   name an FSP in a header or the body of a request whose URI is fine: 400.
// - 3104 stays 400 rather than HTTP's 413: the FSPIOP API and Mojaloop answer
//   every 31xx validation error with 400, and participants' clients are built
//   against that; the errorCode already says what went wrong.

/**
 * @typedef {object} CatalogEntry
 * @property {string} code four-digit FSPIOP error code
 * @property {string} key stable UPPER_SNAKE name, used in code
 * @property {string} description the API's name for the error; start of errorDescription
 * @property {number} httpStatus status when the error answers the request synchronously
 */

/** @type {Array<[string, string, string, number]>} */
const ROWS = [
  // 10xx communication errors
  ['1000', 'COMMUNICATION_ERROR', 'Communication error', 503],
  ['1001', 'DESTINATION_COMMUNICATION_ERROR', 'Destination communication error', 503],
  // 20xx server errors
  ['2000', 'SERVER_ERROR', 'Generic server error', 500],
  ['2001', 'INTERNAL_SERVER_ERROR', 'Internal server error', 500],
  ['2002', 'NOT_IMPLEMENTED', 'Not implemented', 501],
  ['2003', 'SERVICE_CURRENTLY_UNAVAILABLE', 'Service currently unavailable', 503],
  ['2004', 'SERVER_TIMED_OUT', 'Server timed out', 500],
  ['2005', 'SERVER_BUSY', 'Server busy', 503],
  // 30xx generic client errors
  ['3000', 'CLIENT_ERROR', 'Generic client error', 400],
  ['3001', 'UNACCEPTABLE_VERSION', 'Unacceptable version requested', 406],
  ['3002', 'UNKNOWN_URI', 'Unknown URI', 404],
  ['3003', 'ADD_PARTY_INFO_ERROR', 'Add Party information error', 400],
  ['3040', 'DELETE_PARTY_INFO_ERROR', 'Delete Party information error', 400],
  // 31xx validation errors
  ['3100', 'VALIDATION_ERROR', 'Generic validation error', 400],
  ['3101', 'MALFORMED_SYNTAX', 'Malformed syntax', 400],
  ['3102', 'MISSING_ELEMENT', 'Missing mandatory element', 400],
  ['3103', 'TOO_MANY_ELEMENTS', 'Too many elements', 400],
  ['3104', 'TOO_LARGE_PAYLOAD', 'Too large payload', 400],
  ['3105', 'INVALID_SIGNATURE', 'Invalid signature', 400],
  ['3106', 'MODIFIED_REQUEST', 'Modified request', 400],
  ['3107', 'MISSING_MANDATORY_EXTENSION', 'Missing mandatory extension parameter', 400],
  // 32xx identifier errors
  ['3200', 'ID_NOT_FOUND', 'Generic ID not found', 404],
  ['3201', 'DESTINATION_FSP_ERROR', 'Destination FSP Error', 400],
  ['3202', 'PAYER_FSP_ID_NOT_FOUND', 'Payer FSP ID not found', 400],
  ['3203', 'PAYEE_FSP_ID_NOT_FOUND', 'Payee FSP ID not found', 400],
  ['3204', 'PARTY_NOT_FOUND', 'Party not found', 404],
  ['3205', 'QUOTE_ID_NOT_FOUND', 'Quote ID not found', 404],
  ['3206', 'TXN_REQUEST_ID_NOT_FOUND', 'Transaction request ID not found', 404],
  ['3207', 'TXN_ID_NOT_FOUND', 'Transaction ID not found', 404],
  ['3208', 'TRANSFER_ID_NOT_FOUND', 'Transfer ID not found', 404],
  ['3209', 'BULK_QUOTE_ID_NOT_FOUND', 'Bulk quote ID not found', 404],
  ['3210', 'BULK_TRANSFER_ID_NOT_FOUND', 'Bulk transfer ID not found', 404],
  // 33xx expired errors
  ['3300', 'EXPIRED_ERROR', 'Generic expired error', 400],
  ['3301', 'TXN_REQUEST_EXPIRED', 'Transaction request expired', 400],
  ['3302', 'QUOTE_EXPIRED', 'Quote expired', 400],
  ['3303', 'TRANSFER_EXPIRED', 'Transfer expired', 400],
  // 4xxx payer errors
  ['4000', 'PAYER_ERROR', 'Generic Payer error', 400],
  ['4001', 'PAYER_FSP_INSUFFICIENT_LIQUIDITY', 'Payer FSP insufficient liquidity', 400],
  ['4100', 'PAYER_REJECTION', 'Generic Payer rejection', 400],
  ['4101', 'PAYER_REJECTED_TXN_REQUEST', 'Payer rejected transaction request', 400],
  ['4102', 'PAYER_FSP_UNSUPPORTED_TXN_TYPE', 'Payer FSP unsupported transaction type', 400],
  ['4103', 'PAYER_UNSUPPORTED_CURRENCY', 'Payer unsupported currency', 400],
  ['4200', 'PAYER_LIMIT_ERROR', 'Payer limit error', 400],
  ['4300', 'PAYER_PERMISSION_ERROR', 'Payer permission error', 400],
  ['4400', 'PAYER_BLOCKED_ERROR', 'Generic Payer blocked error', 400],
  // 5xxx payee errors
  ['5000', 'PAYEE_ERROR', 'Generic Payee error', 400],
  ['5001', 'PAYEE_FSP_INSUFFICIENT_LIQUIDITY', 'Payee FSP insufficient liquidity', 400],
  ['5100', 'PAYEE_REJECTION', 'Generic Payee rejection', 400],
  ['5101', 'PAYEE_REJECTED_QUOTE', 'Payee rejected quote', 400],
  ['5102', 'PAYEE_FSP_UNSUPPORTED_TXN_TYPE', 'Payee FSP unsupported transaction type', 400],
  ['5103', 'PAYEE_FSP_REJECTED_QUOTE', 'Payee FSP rejected quote', 400],
  ['5104', 'PAYEE_REJECTED_TXN', 'Payee rejected transaction', 400],
  ['5105', 'PAYEE_FSP_REJECTED_TXN', 'Payee FSP rejected transaction', 400],
  ['5106', 'PAYEE_UNSUPPORTED_CURRENCY', 'Payee unsupported currency', 400],
  ['5200', 'PAYEE_LIMIT_ERROR', 'Payee limit error', 400],
  ['5300', 'PAYEE_PERMISSION_ERROR', 'Payee permission error', 400],
  ['5400', 'PAYEE_BLOCKED_ERROR', 'Generic Payee blocked error', 400]
]

/** @type {ReadonlyArray<Readonly<CatalogEntry>>} in code order */
const ERROR_CATALOG = Object.freeze(ROWS.map(([code, key, description, httpStatus]) =>
  Object.freeze({ code, key, description, httpStatus })))

/** @type {ReadonlyMap<string, Readonly<CatalogEntry>>} by code and by key */
const LOOKUP = new Map(ERROR_CATALOG.flatMap((entry) => [[entry.code, entry], [entry.key, entry]]))

/**
 * @param {string} codeOrKey '3101' or 'MALFORMED_SYNTAX'
 * @returns {Readonly<CatalogEntry> | undefined}
 */
function findErrorEntry (codeOrKey) {
  return LOOKUP.get(codeOrKey)
}

module.exports = { ERROR_CATALOG, findErrorEntry }
