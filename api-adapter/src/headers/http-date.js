'use strict'

// The FSPIOP Date header is an RFC 1123 date (the IMF-fixdate of RFC 9110),
// e.g. "Sun, 06 Nov 1994 08:49:37 GMT". Mojaloop checks the same format
// strictly ('ddd, DD MMM YYYY HH:mm:ss [GMT]').

const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/

/**
 * Whether value is a real RFC 1123 date: the right shape, and a day that
 * exists with the right weekday (Date#toUTCString writes exactly this format,
 * so a round trip catches "31 Feb" and a wrong weekday).
 *
 * @param {unknown} value
 * @returns {boolean}
 */
function isHttpDate (value) {
  if (typeof value !== 'string' || !IMF_FIXDATE.test(value)) return false
  const time = Date.parse(value)
  return !Number.isNaN(time) && new Date(time).toUTCString() === value
}

module.exports = { isHttpDate }
