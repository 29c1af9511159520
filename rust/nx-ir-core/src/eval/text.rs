//! Text forms of numbers, as ECMAScript's `Number::toString` lays them out (ir-format §4.4):
//! the shortest round-trip digits of the f64 (or, for `float32`, of the f32), placed by the
//! decimal point position.

/// The float64 form of `value`.
pub fn float64_text(value: f64) -> String {
    let mut out = NumberText::new();
    write_float64(value, &mut out);
    out.as_str().to_string()
}

/// The float32 form of `value` (taken as an f32).
pub fn float32_text(value: f64) -> String {
    let mut out = NumberText::new();
    write_float32(value, &mut out);
    out.as_str().to_string()
}

/// A number's text built on the stack: the longest form is 25 bytes (`-0.00000` and 17 digits),
/// and Rust's scientific form at most 24 (`-1.2345678901234567e-308`), so no form overflows it.
pub(crate) struct NumberText {
    bytes: [u8; 32],
    len: usize,
}

impl NumberText {
    pub fn new() -> NumberText {
        NumberText { bytes: [0; 32], len: 0 }
    }

    pub fn as_str(&self) -> &str {
        // SAFETY: only ASCII is ever written (`push` takes digits, signs, '.', 'e' and the
        // words of the special values; `write_str` the formatter's scientific form).
        unsafe { std::str::from_utf8_unchecked(&self.bytes[..self.len]) }
    }

    fn push(&mut self, byte: u8) {
        if let Some(slot) = self.bytes.get_mut(self.len) {
            *slot = byte;
            self.len += 1;
        }
    }

    fn push_all(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.push(*byte);
        }
    }
}

impl std::fmt::Write for NumberText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.len + s.len() > self.bytes.len() {
            return Err(std::fmt::Error);
        }
        self.push_all(s.as_bytes());
        Ok(())
    }
}

/// Writes the float64 form of `value` into `out` (which it clears first).
pub(crate) fn write_float64(value: f64, out: &mut NumberText) {
    out.len = 0;
    if special(value, out) {
        return;
    }
    let negative = value < 0.0;
    let magnitude = value.abs();
    let mut digits = [0u8; 20];
    let (count, point) = match short_decimal(magnitude) {
        Some((whole, places)) => integer_digits(whole, places, &mut digits),
        None => {
            let binary = binary_parts(magnitude.to_bits(), 52, 1023);
            let mut buffer = ryu::Buffer::new();
            let form = buffer.format_finite(magnitude);
            if let Some(plain) = plain_form(form, binary) {
                if negative {
                    out.push(b'-');
                }
                out.push_all(plain.as_bytes());
                return;
            }
            shortest_digits(form, binary, &mut digits)
        }
    };
    place(negative, &digits[..count], point, out);
}

/// Ryu's form of a float (`mantissa × 2^power`) where it is already ECMAScript's: a decimal
/// with a fraction and no exponent (ryu writes those for points from -4 to 16, within
/// ECMAScript's plain range, and lays them out alike), and surely not an exact tie, where the
/// two break differently ([`shortest_digits`]). A tie needs the float's odd mantissa at the
/// power -q, q being one more than the count of fraction digits ([`is_tie`]).
fn plain_form(form: &str, (mantissa, power): (u64, i64)) -> Option<&str> {
    let bytes = form.as_bytes();
    let point = bytes.iter().position(|b| *b == b'.')?;
    let fraction = &bytes[point + 1..];
    if fraction == b"0" || fraction.contains(&b'e') {
        return None;
    }
    let odd_power = power + i64::from(mantissa.trailing_zeros());
    (odd_power != -(fraction.len() as i64 + 1)).then_some(form)
}

/// Writes the float32 form of `value` (taken as an f32) into `out` (which it clears first).
pub(crate) fn write_float32(value: f64, out: &mut NumberText) {
    out.len = 0;
    let narrow = value as f32;
    if special(f64::from(narrow), out) {
        return;
    }
    let mut digits = [0u8; 20];
    let binary = binary_parts(u64::from(narrow.abs().to_bits()), 23, 127);
    let (count, point) = shortest_digits(ryu::Buffer::new().format_finite(narrow.abs()), binary, &mut digits);
    place(narrow < 0.0, &digits[..count], point, out);
}

/// NaN, the infinities and both zeros, which have fixed forms.
fn special(value: f64, out: &mut NumberText) -> bool {
    let word: &[u8] = if value.is_nan() {
        b"NaN"
    } else if value == f64::INFINITY {
        b"Infinity"
    } else if value == f64::NEG_INFINITY {
        b"-Infinity"
    } else if value == 0.0 {
        b"0"
    } else {
        return false;
    };
    out.push_all(word);
    true
}

/// Powers of ten that are exact as f64s.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// Below this, a decimal with that many digits is the only one of its length that reads back as
/// the float (the decimals' spacing exceeds the float's rounding interval), and the float's
/// product with an exact power of ten lands within a half of it.
const SHORT_LIMIT: f64 = 1e15;

/// The shortest decimal `whole / 10^places` that reads back as `magnitude` (finite, positive),
/// found without a formatter when it has fewer than 16 significant digits: the fewest decimal
/// places whose rounded multiple divides back to the float exactly. IEEE division is correctly
/// rounded, so that test is exactly "parsing the decimal gives the float back"; and with fewer
/// than 10^15 as the multiple, one candidate per count of places can pass, so the first that
/// passes is the shortest round-trip decimal, and the nearest (the one `{:e}` prints).
/// `None` sends the value to the formatter.
///
/// A value with no such decimal (most floats of 16 or 17 digits) is found by one test, at the
/// most places whose multiple stays below the limit, instead of one per count of places: a
/// decimal of fewer places that reads back passes there too (the same decimal, zeros appended).
/// Its multiple `N` there differs from the float's exact multiple by at most half the float's
/// spacing times the power, under 10^15 × 2^-53 ≈ 0.11, and the product's own rounding adds at
/// most half a spacing of numbers below 10^15, 2^-4: `N` is what the product rounds to, and
/// `N / 10^places` is the decimal itself, which reads back as the float.
fn short_decimal(magnitude: f64) -> Option<(u64, usize)> {
    let below = EXACT_POWERS.iter().take_while(|power| magnitude * **power < SHORT_LIMIT).count();
    let most = below.checked_sub(1)?;
    reads_back(magnitude, most)?;
    (0..=most).find_map(|places| reads_back(magnitude, places).map(|whole| (whole, places)))
}

/// The multiple of `magnitude` by 10^`places` (below [`SHORT_LIMIT`]), rounded, when that
/// decimal reads back as `magnitude`.
#[inline]
fn reads_back(magnitude: f64, places: usize) -> Option<u64> {
    let power = EXACT_POWERS[places];
    let whole = round_below_limit(magnitude * power);
    (whole as i64 as f64 / power == magnitude).then_some(whole)
}

/// `scaled.round()` (half away from zero) of a float in [0, [`SHORT_LIMIT`]), without the
/// library call `round` is on a baseline x86-64: the integer part is exact as an integer and as
/// a float there (below 2^53), and so is the fraction left (Sterbenz: the part is at least half
/// the float, or zero).
#[inline]
fn round_below_limit(scaled: f64) -> u64 {
    debug_assert!((0.0..SHORT_LIMIT).contains(&scaled));
    // Through i64 (the value fits): one conversion instruction each way, where u64 takes several.
    let part = scaled as i64;
    (part + i64::from(scaled - part as f64 >= 0.5)) as u64
}

/// The significant digits of `whole / 10^places` (trailing zeros dropped) and the decimal
/// point's position `n` (value = 0.d1d2... × 10^n).
fn integer_digits(mut whole: u64, places: usize, digits: &mut [u8; 20]) -> (usize, i64) {
    let mut reversed = [0u8; 20];
    let mut count = 0;
    while whole > 0 && count < reversed.len() {
        reversed[count] = b'0' + (whole % 10) as u8;
        whole /= 10;
        count += 1;
    }
    let point = count as i64 - places as i64;
    let mut skip = 0;
    while skip + 1 < count && reversed[skip] == b'0' {
        skip += 1;
    }
    let kept = count - skip;
    for at in 0..kept {
        digits[at] = reversed[count - 1 - at];
    }
    (kept, point)
}

/// A positive finite IEEE float's bits (`fraction` bits of fraction under a biased exponent) as
/// `(mantissa, power)`, the float being `mantissa × 2^power`.
fn binary_parts(bits: u64, fraction: u32, bias: i64) -> (u64, i64) {
    let exponent = (bits >> fraction) as i64;
    let stored = bits & ((1 << fraction) - 1);
    let lowest = 1 - bias - i64::from(fraction);
    if exponent == 0 {
        (stored, lowest)
    } else {
        (stored | 1 << fraction, lowest + exponent - 1)
    }
}

/// The significant digits and point position (value = 0.d1d2... × 10^point) of a positive
/// finite float from ryu's shortest round-trip form of it (`0.30000000000000004`, `1e21`,
/// `123.0`), the float being `mantissa × 2^power`.
///
/// Ryu and Rust's formatter (the reference's) find the same shortest digits, nearest the float,
/// but break an exact tie differently: when the float lies exactly halfway between two shortest
/// decimals, ryu takes the even one and the formatter the larger. Only a float whose exact value
/// is the form's digits followed by a 5 is such a tie; it then takes the larger.
fn shortest_digits(form: &str, float: (u64, i64), digits: &mut [u8; 20]) -> (usize, i64) {
    let bytes = form.as_bytes();
    let split = bytes.iter().position(|b| *b == b'e').unwrap_or(bytes.len());
    let (mut count, mut point, mut after_point) = (0usize, 0i64, false);
    for &byte in &bytes[..split] {
        if byte == b'.' {
            after_point = true;
        } else if count == 0 && byte == b'0' {
            // A leading zero: before the point it says nothing, after it it moves the point.
            point -= i64::from(after_point);
        } else if count < digits.len() {
            digits[count] = byte;
            count += 1;
            point += i64::from(!after_point);
        }
    }
    while count > 1 && digits[count - 1] == b'0' {
        count -= 1;
    }
    let mut exponent: i64 = 0;
    let mut negative = false;
    for byte in bytes.get(split + 1..).unwrap_or(&[]) {
        match byte {
            b'-' => negative = true,
            b'0'..=b'9' => exponent = exponent.saturating_mul(10).saturating_add(i64::from(byte - b'0')),
            _ => {}
        }
    }
    point += if negative { -exponent } else { exponent };
    if count > 0 && (digits[count - 1] - b'0') % 2 == 0 && is_tie(&digits[..count], point, float) {
        // The last digit is even, so one more never carries.
        digits[count - 1] += 1;
    }
    (count.max(1), point)
}

/// Whether `mantissa × 2^power` is exactly 0.d1...dk5 × 10^point.
///
/// With T the integer d1...dk5 and q = k + 1 - point, the float equals T / 10^q. T is odd (it
/// ends in 5), so with the mantissa made odd this holds exactly when 2^power = 2^-q and
/// mantissa × 5^q = T. T has fewer than 20 digits, so q past 27 (5^q > 10^18) cannot hold.
fn is_tie(digits: &[u8], point: i64, (mantissa, power): (u64, i64)) -> bool {
    if mantissa == 0 || digits.len() > 18 {
        return false;
    }
    let zeros = mantissa.trailing_zeros();
    let (odd, power) = (mantissa >> zeros, power + i64::from(zeros));
    let q = digits.len() as i64 + 1 - point;
    if power != -q || !(1..=27).contains(&q) {
        return false;
    }
    let tie = digits.iter().fold(0u128, |t, d| t * 10 + u128::from(d - b'0')) * 10 + 5;
    u128::from(odd) * 5u128.pow(q as u32) == tie
}

/// Lays the digits out the ECMAScript way: value = 0.digits × 10^point.
fn place(negative: bool, digits: &[u8], point: i64, out: &mut NumberText) {
    let k = digits.len() as i64;
    let n = point;
    if negative {
        out.push(b'-');
    }
    if k <= n && n <= 21 {
        out.push_all(digits);
        for _ in 0..(n - k) {
            out.push(b'0');
        }
    } else if 0 < n && n <= 21 {
        out.push_all(&digits[..n as usize]);
        out.push(b'.');
        out.push_all(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_all(b"0.");
        for _ in 0..(-n) {
            out.push(b'0');
        }
        out.push_all(digits);
    } else {
        out.push(digits[0]);
        if k > 1 {
            out.push(b'.');
            out.push_all(&digits[1..]);
        }
        out.push(b'e');
        let e = n - 1;
        out.push(if e < 0 { b'-' } else { b'+' });
        let mut magnitude = e.unsigned_abs();
        let mut reversed = [0u8; 4];
        let mut count = 0;
        loop {
            reversed[count] = b'0' + (magnitude % 10) as u8;
            magnitude /= 10;
            count += 1;
            if magnitude == 0 || count == reversed.len() {
                break;
            }
        }
        for at in (0..count).rev() {
            out.push(reversed[at]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_decimals_are_found_as_by_testing_every_count_of_places() {
        // The definition: the fewest places whose rounded multiple reads back, stopping at the
        // first multiple past the limit.
        fn every_place(magnitude: f64) -> Option<(u64, usize)> {
            for (places, power) in EXACT_POWERS.iter().enumerate() {
                let scaled = magnitude * power;
                if scaled >= SHORT_LIMIT {
                    return None;
                }
                if scaled.round() / power == magnitude {
                    return Some((scaled.round() as u64, places));
                }
            }
            None
        }
        let mut values: Vec<f64> = (1..100_000).map(|i| f64::from(i) * 0.1).collect();
        values.extend((1..20_000).map(|i| f64::from(i) / 7.0));
        values.extend([5e-324, 1e-22, 1e-23, 1.5e-22, 999999999999999.9, 99999999999999.98, 123456789012345.6, 0.1, 0.3]);
        let mut bits: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            bits ^= bits << 13;
            bits ^= bits >> 7;
            bits ^= bits << 17;
            let value = f64::from_bits(bits >> 1);
            if value.is_finite() && value > 0.0 {
                values.push(value);
            }
            // Short decimals of up to 15 digits, at every scale of places.
            let digits = (bits % 1_000_000_000_000_000) as f64;
            values.push(digits / EXACT_POWERS[(bits >> 50) as usize % EXACT_POWERS.len()]);
        }
        for value in values.into_iter().filter(|v| *v > 0.0) {
            assert_eq!(short_decimal(value), every_place(value), "{value:?}");
        }
    }

    #[test]
    fn rounding_below_the_limit_is_round_half_away_from_zero() {
        let mut values = vec![0.0, 0.49999999999999994, 0.5, 1.5, 2.5, 2.4999999999999996, 1e15 - 0.5, 1e15 - 1.0, 4503599627370495.5];
        values.extend((0..2000).map(|i| f64::from(i) * 0.25));
        let mut bits: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..200_000 {
            bits ^= bits << 13;
            bits ^= bits >> 7;
            bits ^= bits << 17;
            // Spread over [0, 1e15), and over the low range where fractions are fine.
            values.push((bits >> 11) as f64 / (1u64 << 53) as f64 * SHORT_LIMIT);
            values.push((bits >> 11) as f64 / (1u64 << 53) as f64 * 1e3);
        }
        for value in values.into_iter().filter(|v| *v < SHORT_LIMIT) {
            assert_eq!(round_below_limit(value) as f64, value.round(), "{value:?}");
        }
    }

    #[test]
    fn float64_forms_follow_number_to_string() {
        assert_eq!(float64_text(1.0), "1");
        assert_eq!(float64_text(0.1), "0.1");
        assert_eq!(float64_text(1.0e21), "1e+21");
        assert_eq!(float64_text(1.5e21), "1.5e+21");
        assert_eq!(float64_text(1.0e-7), "1e-7");
        assert_eq!(float64_text(1.5e-7), "1.5e-7");
        assert_eq!(float64_text(-0.0), "0");
        assert_eq!(float64_text(123.456), "123.456");
        assert_eq!(float64_text(0.000001), "0.000001");
        assert_eq!(float64_text(123456789012345680000.0), "123456789012345680000");
        assert_eq!(float64_text(f64::NAN), "NaN");
        assert_eq!(float64_text(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(float64_text(-42.0), "-42");
        assert_eq!(float64_text(1.5), "1.5");
        // A tie between two shortest decimals (the float is 1234560000000000.25): the
        // reference's formatter rounds it up.
        assert_eq!(float64_text(f64::from_bits(0x4311_8b4d_9904_0001)), "1234560000000000.3");
    }

    /// ECMAScript's layout of Rust's shortest scientific form, written plainly with strings
    /// (ir-format §4.4): the model the stack writer and its formatter-free path must match.
    fn model(value: f64) -> String {
        model_of(value, format!("{:e}", value.abs()))
    }

    /// [`model`] of a float32: Rust's shortest scientific form of the f32.
    fn model32(value: f64) -> String {
        let narrow = value as f32;
        model_of(f64::from(narrow), format!("{:e}", narrow.abs()))
    }

    fn model_of(value: f64, scientific: String) -> String {
        if value.is_nan() {
            return "NaN".into();
        }
        if value.is_infinite() {
            return if value > 0.0 { "Infinity".into() } else { "-Infinity".into() };
        }
        if value == 0.0 {
            return "0".into();
        }
        let (mantissa, exponent) = scientific.split_once('e').unwrap();
        let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
        let n = exponent.parse::<i64>().unwrap() + 1;
        let k = digits.len() as i64;
        let body = if k <= n && n <= 21 {
            format!("{digits}{}", "0".repeat((n - k) as usize))
        } else if 0 < n && n <= 21 {
            format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
        } else if -6 < n && n <= 0 {
            format!("0.{}{digits}", "0".repeat((-n) as usize))
        } else {
            let rest = if k > 1 { format!(".{}", &digits[1..]) } else { String::new() };
            format!("{}{rest}e{}{}", &digits[..1], if n - 1 < 0 { '-' } else { '+' }, (n - 1).abs())
        };
        if value < 0.0 {
            format!("-{body}")
        } else {
            body
        }
    }

    #[test]
    fn float64_forms_equal_the_formatter_model() {
        let mut values: Vec<f64> = Vec::new();
        // Products like the benches' `i * 0.1`, quotients, and values around every boundary
        // of the layout (1e-7, 1e21) and of the formatter-free path (1e15).
        for i in 0..200_000i64 {
            values.push(i as f64 * 0.1);
            values.push(i as f64 / 7.0);
            values.push(-(i as f64) * 0.01);
        }
        for e in -30..30 {
            let p = 10f64.powi(e);
            for m in [1.0, 1.5, 9.99, 123.456, 999_999_999_999_999.0, 0.3, 2.5e-3] {
                values.push(m * p);
                values.push(f64::from_bits((m * p).to_bits() + 1));
                values.push(f64::from_bits((m * p).to_bits() - 1));
            }
        }
        // Bit patterns spread over the whole finite range (a fixed linear congruential walk).
        let mut bits: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            bits = bits.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            values.push(f64::from_bits(bits));
            values.push(f64::from_bits(bits >> 12 | 0x3FF0_0000_0000_0000) * 1000.0);
        }
        for value in values {
            assert_eq!(float64_text(value), model(value), "{value:e} ({:#x})", value.to_bits());
        }
    }

    /// A float exactly halfway between two shortest decimals: ryu takes the even one, the
    /// formatter (and so the reference) the larger. Every f64 in [2^50, 2^51) ending in .25 or
    /// .75, and every f32 in [2^21, 2^22) likewise, is such a tie.
    #[test]
    fn exact_ties_take_the_larger_decimal_as_the_formatter_does() {
        let mut ties = 0;
        let mut bits: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..50_000 {
            bits = bits.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let whole = (1u64 << 50) + (bits >> 14) % (1u64 << 50);
            for fraction in [0.25, 0.75] {
                let value = whole as f64 + fraction;
                assert_eq!(float64_text(value), model(value), "{value:e} ({:#x})", value.to_bits());
                assert_eq!(float64_text(-value), model(-value));
                ties += 1;
            }
            let whole32 = (1u32 << 21) + (bits >> 40) as u32 % (1u32 << 21);
            for fraction in [0.25f32, 0.75] {
                let value = f64::from(whole32 as f32 + fraction);
                assert_eq!(float32_text(value), model32(value), "{value:e}");
            }
        }
        assert_eq!(ties, 100_000);
        // Beside the ties: the even neighbour of a tie's digits is not one.
        assert_eq!(float64_text(1234560000000000.0), "1234560000000000");
        assert_eq!(float64_text(1234560000000000.5), "1234560000000000.5");
    }

    #[test]
    fn float32_forms_equal_the_formatter_model() {
        let mut bits: u32 = 0x9E37_79B9;
        for i in 0..200_000u32 {
            bits = bits.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            for value in [f64::from(f32::from_bits(bits)), f64::from(i) * 0.1, f64::from(i) / 7.0] {
                assert_eq!(float32_text(value), model32(value), "{value:e}");
            }
        }
    }

    #[test]
    fn float32_forms_use_the_shortest_f32_digits() {
        assert_eq!(float32_text(0.10000000149011612), "0.1");
        assert_eq!(float32_text(6.899999618530273), "6.8999996");
    }
}
