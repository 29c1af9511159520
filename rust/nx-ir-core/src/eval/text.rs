//! Text forms of numbers, as ECMAScript's `Number::toString` lays them out (ir-format §4.4):
//! the shortest round-trip digits of the f64 (or, for `float32`, of the f32), placed by the
//! decimal point position.

/// The float64 form of `value`.
pub fn float64_text(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if value == 0.0 {
        return "0".into();
    }
    layout(&format!("{:e}", value))
}

/// The float32 form of `value` (taken as an f32).
pub fn float32_text(value: f64) -> String {
    let narrow = value as f32;
    if narrow.is_nan() {
        return "NaN".into();
    }
    if narrow.is_infinite() {
        return if narrow > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if narrow == 0.0 {
        return "0".into();
    }
    layout(&format!("{:e}", narrow))
}

/// Lays out Rust's shortest scientific form (`-1.2345e-7`) the ECMAScript way.
fn layout(scientific: &str) -> String {
    let (negative, rest) = match scientific.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, scientific),
    };
    let (mantissa, exponent) = rest.split_once('e').unwrap_or((rest, "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let k = digits.len() as i64;
    // value = 0.d × 10^n
    let n = exponent + 1;
    let mut out = String::with_capacity(k as usize + 8);
    if negative {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(digits);
        for _ in 0..(n - k) {
            out.push('0');
        }
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        for _ in 0..(-n) {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        let e = n - 1;
        out.push(if e < 0 { '-' } else { '+' });
        out.push_str(&e.abs().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn float32_forms_use_the_shortest_f32_digits() {
        assert_eq!(float32_text(0.10000000149011612), "0.1");
        assert_eq!(float32_text(6.899999618530273), "6.8999996");
    }
}
