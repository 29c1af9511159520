//! Colour-space conversions on `[c0, c1, c2, alpha]` channel arrays of float64.
//!
//! sRGB's transfer function and the cylindrical forms (HSL, HSV, HWB) follow CSS Color 4; OKLab
//! goes straight from linear sRGB through Björn Ottosson's published matrices (ten digits). Sums
//! are evaluated left to right as written, which is the order the reference uses.

/// Four channels: three colour coordinates and alpha, which the conversions pass through.
pub(super) type Channels = [f64; 4];

/// sRGB-encoded to linear light.
pub(super) fn to_linear(x: f64) -> f64 {
    if x <= 0.04045 {
        x / 12.92
    } else {
        ((x + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light to sRGB-encoded.
pub(super) fn from_linear(x: f64) -> f64 {
    if x <= 0.0031308 {
        x * 12.92
    } else {
        1.055 * x.powf(1.0 / 2.4) - 0.055
    }
}

/// A hue in degrees brought into `[0, 360)`; a value that lands on 360 is 0.
pub(super) fn normalize_hue(h: f64) -> f64 {
    let h = h.rem_euclid(360.0);
    if h == 0.0 || h >= 360.0 {
        0.0
    } else {
        h
    }
}

/// HSV (hue in degrees, saturation and value in [0, 1]) to sRGB.
pub(super) fn hsv_to_rgb(hue: f64, s: f64, v: f64) -> [f64; 3] {
    let sector = normalize_hue(hue) / 60.0;
    let f = sector - sector.floor();
    let p = v * (1.0 - s);
    let q = v * (1.0 - s * f);
    let t = v * (1.0 - s * (1.0 - f));
    // A saturating cast: `sector` lies in [0, 6) (NaN gives 0).
    match sector as u8 {
        0 => [v, t, p],
        1 => [q, v, p],
        2 => [p, v, t],
        3 => [p, q, v],
        4 => [t, p, v],
        _ => [v, p, q],
    }
}

/// HSL to sRGB, through HSV.
pub(super) fn hsl_to_rgb([h, s, l, alpha]: Channels) -> Channels {
    let v = l + s * l.min(1.0 - l);
    let sv = if v == 0.0 { 0.0 } else { 2.0 * (1.0 - l / v) };
    let [r, g, b] = hsv_to_rgb(h, sv, v);
    [r, g, b, alpha]
}

/// HWB (whiteness and blackness in [0, 1]) to sRGB; when they add up to one or more the colour
/// is the grey `w / (w + b)`.
pub(super) fn hwb_to_rgb(h: f64, w: f64, b: f64) -> [f64; 3] {
    let sum = w + b;
    if sum >= 1.0 {
        let grey = w / sum;
        return [grey; 3];
    }
    hsv_to_rgb(h, 1.0, 1.0).map(|x| x * (1.0 - sum) + w)
}

/// The largest and smallest of the three colour channels.
fn extremes(c: &Channels) -> (f64, f64) {
    (c[0].max(c[1]).max(c[2]), c[0].min(c[1]).min(c[2]))
}

/// sRGB to HSL: `[hue, saturation, lightness, alpha]`; a grey has hue and saturation 0.
pub(super) fn rgb_to_hsl(c: Channels) -> Channels {
    let [r, g, b, alpha] = c;
    let (max, min) = extremes(&c);
    let chroma = max - min;
    let l = (max + min) / 2.0;
    if chroma == 0.0 {
        return [0.0, 0.0, l, alpha];
    }
    let s = chroma / (1.0 - (2.0 * l - 1.0).abs());
    let sixths = if max == r {
        ((g - b) / chroma).rem_euclid(6.0)
    } else if max == g {
        (b - r) / chroma + 2.0
    } else {
        (r - g) / chroma + 4.0
    };
    [normalize_hue(60.0 * sixths), s, l, alpha]
}

/// sRGB to HSV: `[hue, saturation, value, alpha]`.
pub(super) fn rgb_to_hsv(c: Channels) -> Channels {
    let (max, min) = extremes(&c);
    let s = if max == 0.0 { 0.0 } else { (max - min) / max };
    [rgb_to_hsl(c)[0], s, max, c[3]]
}

/// sRGB to HWB: `[hue, whiteness, blackness, alpha]`.
pub(super) fn rgb_to_hwb(c: Channels) -> Channels {
    let (max, min) = extremes(&c);
    [rgb_to_hsl(c)[0], min, 1.0 - max, c[3]]
}

/// sRGB to OKLab: `[L, a, b, alpha]`.
pub(super) fn rgb_to_oklab([r, g, b, alpha]: Channels) -> Channels {
    let (r, g, b) = (to_linear(r), to_linear(g), to_linear(b));
    let l = (0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b).cbrt();
    let m = (0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b).cbrt();
    let s = (0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b).cbrt();
    [
        0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
        1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
        0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s,
        alpha,
    ]
}

/// OKLab to sRGB (unclipped: out-of-gamut colours give channels outside [0, 1]).
pub(super) fn oklab_to_rgb([lightness, a, b, alpha]: Channels) -> Channels {
    let cube = |x: f64| x * x * x;
    let l = cube(lightness + 0.3963377774 * a + 0.2158037573 * b);
    let m = cube(lightness - 0.1055613458 * a - 0.0638541728 * b);
    let s = cube(lightness - 0.0894841775 * a - 1.2914855480 * b);
    [
        from_linear(4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s),
        from_linear(-1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s),
        from_linear(-0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s),
        alpha,
    ]
}

/// OKLCh (chroma and hue in degrees) to OKLab.
pub(super) fn oklch_to_oklab(lightness: f64, chroma: f64, hue: f64, alpha: f64) -> Channels {
    let h = hue.rem_euclid(360.0).to_radians();
    [lightness, chroma * h.cos(), chroma * h.sin(), alpha]
}

/// sRGB to OKLCh: `[L, C, h, alpha]`; a grey (three equal channels) has chroma and hue 0.
pub(super) fn rgb_to_oklch(c: Channels) -> Channels {
    let [lightness, a, b, _] = rgb_to_oklab(c);
    if c[0] == c[1] && c[1] == c[2] {
        return [lightness, 0.0, 0.0, c[3]];
    }
    [lightness, a.hypot(b), b.atan2(a).to_degrees().rem_euclid(360.0), c[3]]
}
