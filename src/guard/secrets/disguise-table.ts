/**
 * Every code point the secret scan reads through, in hex (a range as FIRST-LAST): the hidden ones,
 * format (Cf) and default-ignorable (zero-width spaces and joiners, soft hyphen, BOM, bidi and tag
 * controls, variation selectors, fillers), and those whose NFKC form is ASCII (full-width forms,
 * mathematical alphanumerics, super- and subscripts, ligatures, Roman numerals, enclosed letters,
 * compatibility spaces). Generated from v20.20.2's Unicode data;
 * test/unit/secrets-normalise.test.ts recomputes it and prints a fresh table when Node's changes.
 */
export const DISGUISES = [
  'a0 aa ad b2-b3 b9-ba 132-133 17f 1c7-1cc 1f1-1f3 2b0 2b2-2b3 2b7-2b8 2e1-2e3 34f 37e 600-605 61c 6dd',
  '70f 890-891 8e2 115f-1160 17b4-17b5 180b-180f 1d2c 1d2e 1d30-1d31 1d33-1d3a 1d3c 1d3e-1d43 1d47-1d49',
  '1d4d 1d4f-1d50 1d52 1d56-1d58 1d5b 1d62-1d65 1d9c 1da0 1dbb 1fef 2000-200f 2024-2026 202a-202f 203c',
  '2047-2049 205f-2071 2074-207a 207c-208a 208c-208e 2090-2093 2095-209c 20a8 2100-2102 2105-2106',
  '210a-210e 2110-2113 2115-2116 2119-211d 2120-2122 2124 2128 212a 212c-212d 212f-2131 2133-2134 2139',
  '213b 2145-2149 2160-217f 2460-24ea 2a74-2a76 2c7c-2c7d 3000 3164 3250-325f 32b1-32bf 32cc-32cf',
  '3371-337a 3380-3381 3383-338b 338e-3394 3396-339a 339c-33a6 33a9-33ad 33b0-33b1 33b3-33b5 33b7-33bb',
  '33bd-33bf 33c2-33c5 33c7-33dd 33ff a7f1-a7f4 fb00-fb06 fb29 fe00-fe10 fe13-fe16 fe19 fe30 fe33-fe38',
  'fe47-fe48 fe4d-fe50 fe52 fe54-fe57 fe59-fe5c fe5f-fe66 fe68-fe6b feff ff01-ff5e ffa0 fff0-fffb 107a5',
  '110bd 110cd 13430-1343f 1bca0-1bca3 1ccd6-1ccf9 1d173-1d17a 1d400-1d454 1d456-1d49c 1d49e-1d49f',
  '1d4a2 1d4a5-1d4a6 1d4a9-1d4ac 1d4ae-1d4b9 1d4bb 1d4bd-1d4c3 1d4c5-1d505 1d507-1d50a 1d50d-1d514',
  '1d516-1d51c 1d51e-1d539 1d53b-1d53e 1d540-1d544 1d546 1d54a-1d550 1d552-1d6a3 1d7ce-1d7ff',
  '1f100-1f10a 1f110-1f129 1f12b-1f12e 1f130-1f14f 1f16a-1f16c 1f190 1fbf0-1fbf9 e0000-e0fff',
].join(' ');
