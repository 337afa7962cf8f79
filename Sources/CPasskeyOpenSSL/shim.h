// Umbrella header for CPasskeyOpenSSL (libcrypto from OpenSSL 3.0).
//
// Only PasskeyCrypto imports this module. Everything Swift cannot import directly is wrapped
// here in a small `static inline` function:
//   - function-like macros (OPENSSL_free, the sk_X509_* / sk_ASN1_OBJECT_* stack macros),
//   - composite macros (EVP_PKEY_PUBLIC_KEY),
//   - OSSL_PARAM construction: OSSL_PARAM and OSSL_PARAM_BLD keep the pointers they are given,
//     so the parameters are built and consumed inside one C call, never across Swift scopes.
#ifndef PASSKEY_OPENSSL_SHIM_H
#define PASSKEY_OPENSSL_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <openssl/asn1.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/objects.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

/// OPENSSL_free is a macro (it passes __FILE__/__LINE__).
static inline void passkey_openssl_free(void *pointer) {
    OPENSSL_free(pointer);
}

/// A key of `type` ("EC", "RSA") from import parameters (EVP_PKEY_fromdata); NULL on failure.
static inline EVP_PKEY *passkey_pkey_fromdata(const char *type, int selection, OSSL_PARAM *params) {
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    if (context == NULL) {
        return NULL;
    }
    EVP_PKEY *key = NULL;
    if (EVP_PKEY_fromdata_init(context) != 1
        || EVP_PKEY_fromdata(context, &key, selection, params) != 1) {
        key = NULL;
    }
    EVP_PKEY_CTX_free(context);
    return key;
}

/// An EC public key from a SEC1 encoded point on a named group ("P-256", "P-384", "P-521").
/// Returns NULL (with the reason on the error queue) when the point does not decode or is not
/// on the curve: OpenSSL 3's EC import decodes the point with EC_POINT_oct2point, which checks
/// curve membership. The caller additionally runs EVP_PKEY_public_check.
static inline EVP_PKEY *passkey_ec_public_key(const char *group_name,
                                              const unsigned char *point, size_t point_length) {
    OSSL_PARAM params[3];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
                                                 (char *)group_name, 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY,
                                                  (void *)point, point_length);
    params[2] = OSSL_PARAM_construct_end();
    return passkey_pkey_fromdata("EC", EVP_PKEY_PUBLIC_KEY, params);
}

/// An RSA public key from big-endian unsigned modulus and exponent.
static inline EVP_PKEY *passkey_rsa_public_key(const unsigned char *modulus, size_t modulus_length,
                                               const unsigned char *exponent, size_t exponent_length) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM *params = NULL;
    OSSL_PARAM_BLD *builder = NULL;
    BIGNUM *n = BN_bin2bn(modulus, (int)modulus_length, NULL);
    BIGNUM *e = BN_bin2bn(exponent, (int)exponent_length, NULL);
    if (n == NULL || e == NULL) {
        goto done;
    }
    builder = OSSL_PARAM_BLD_new();
    if (builder == NULL
        || OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, n) != 1
        || OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, e) != 1) {
        goto done;
    }
    params = OSSL_PARAM_BLD_to_param(builder);  // copies the BIGNUM values
    if (params != NULL) {
        key = passkey_pkey_fromdata("RSA", EVP_PKEY_PUBLIC_KEY, params);
    }
done:
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    BN_free(n);
    BN_free(e);
    return key;
}

/// Writes a BIGNUM-valued key parameter ("qx", "qy", "n", "e") as big-endian bytes.
/// `pad_to` > 0 left-pads to exactly that many bytes. Returns the length written, or -1.
/// With `out` == NULL returns the length that would be written.
static inline int passkey_pkey_bn_param(const EVP_PKEY *key, const char *name,
                                        unsigned char *out, int out_capacity, int pad_to) {
    BIGNUM *value = NULL;
    if (EVP_PKEY_get_bn_param(key, name, &value) != 1 || value == NULL) {
        return -1;
    }
    int length = pad_to > 0 ? pad_to : BN_num_bytes(value);
    int result = length;
    if (out != NULL) {
        if (out_capacity < length) {
            result = -1;
        } else if (pad_to > 0) {
            result = BN_bn2binpad(value, out, pad_to);
        } else {
            result = BN_bn2bin(value, out);
        }
    }
    BN_free(value);
    return result;
}

/// The order n of a named curve (big-endian, minimal). Returns the length, or -1.
static inline int passkey_curve_order(int curve_nid, unsigned char *out, int out_capacity) {
    EC_GROUP *group = EC_GROUP_new_by_curve_name(curve_nid);
    if (group == NULL) {
        return -1;
    }
    const BIGNUM *order = EC_GROUP_get0_order(group);
    int result = -1;
    if (order != NULL && BN_num_bytes(order) <= out_capacity) {
        result = BN_bn2bin(order, out);
    }
    EC_GROUP_free(group);
    return result;
}

/// An EC key pair from an unsigned big-endian private scalar on a named curve (`curve_nid`,
/// `group_name` the same curve). Refuses a scalar outside 1 ≤ d < n. Computes Q = d·G and
/// writes it uncompressed (0x04 || X || Y) to `point_out` (`*point_length` receives its length).
/// Returns NULL (with the reason on the error queue, if OpenSSL gave one) on any failure.
static inline EVP_PKEY *passkey_ec_private_key(int curve_nid, const char *group_name,
                                               const unsigned char *scalar, size_t scalar_length,
                                               unsigned char *point_out, size_t point_capacity,
                                               size_t *point_length) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM *params = NULL;
    OSSL_PARAM_BLD *builder = NULL;
    EC_POINT *point = NULL;
    BIGNUM *d = NULL;
    size_t length = 0;
    EC_GROUP *group = EC_GROUP_new_by_curve_name(curve_nid);
    *point_length = 0;
    if (group == NULL || scalar_length == 0 || scalar_length > 256) {
        goto done;
    }
    d = BN_secure_new();
    if (d == NULL || BN_bin2bn(scalar, (int)scalar_length, d) == NULL
        || BN_is_zero(d) || BN_cmp(d, EC_GROUP_get0_order(group)) >= 0) {
        goto done;
    }
    point = EC_POINT_new(group);
    if (point == NULL || EC_POINT_mul(group, point, d, NULL, NULL, NULL) != 1) {
        goto done;
    }
    length = EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED,
                                point_out, point_capacity, NULL);
    if (length == 0 || length > point_capacity) {
        goto done;
    }
    builder = OSSL_PARAM_BLD_new();
    if (builder == NULL
        || OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, group_name, 0) != 1
        || OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_PRIV_KEY, d) != 1
        || OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point_out, length) != 1) {
        goto done;
    }
    params = OSSL_PARAM_BLD_to_param(builder);  // copies the values
    if (params != NULL) {
        key = passkey_pkey_fromdata("EC", EVP_PKEY_KEYPAIR, params);
    }
    if (key != NULL) {
        *point_length = length;
    }
done:
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    EC_POINT_free(point);
    BN_clear_free(d);
    EC_GROUP_free(group);
    return key;
}

/// ANSI X9.63 KDF (OpenSSL's X963KDF EVP_KDF) with the named digest ("SHA256"): `out_length`
/// bytes from the shared secret Z and SharedInfo (`info`, may be empty). Returns 1 on success.
static inline int passkey_x963kdf(const char *digest_name,
                                  const unsigned char *secret, size_t secret_length,
                                  const unsigned char *info, size_t info_length,
                                  unsigned char *out, size_t out_length) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, OSSL_KDF_NAME_X963KDF, NULL);
    if (kdf == NULL) {
        return 0;
    }
    EVP_KDF_CTX *context = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (context == NULL) {
        return 0;
    }
    OSSL_PARAM params[4];
    size_t count = 0;
    params[count++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)digest_name, 0);
    params[count++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)secret, secret_length);
    if (info_length > 0) {
        params[count++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_length);
    }
    params[count] = OSSL_PARAM_construct_end();
    int result = EVP_KDF_derive(context, out, out_length, params) == 1 ? 1 : 0;
    EVP_KDF_CTX_free(context);
    return result;
}

/// ASN1_TIME (UTCTime or GeneralizedTime) to seconds since 1970-01-01T00:00:00Z.
/// Returns 1 on success. (`struct tm` stays on the C side.)
static inline int passkey_asn1_time_to_posix(const ASN1_TIME *time_value, int64_t *seconds) {
    struct tm broken_down;
    memset(&broken_down, 0, sizeof broken_down);
    if (time_value == NULL || ASN1_TIME_to_tm(time_value, &broken_down) != 1) {
        return 0;
    }
    // Days from the civil date (proleptic Gregorian), H. Hinnant's algorithm.
    int64_t year = (int64_t)broken_down.tm_year + 1900;
    int64_t month = (int64_t)broken_down.tm_mon + 1;
    int64_t day = (int64_t)broken_down.tm_mday;
    year -= month <= 2 ? 1 : 0;
    int64_t era = (year >= 0 ? year : year - 399) / 400;
    int64_t year_of_era = year - era * 400;
    int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    int64_t days = era * 146097 + day_of_era - 719468;
    *seconds = days * 86400 + (int64_t)broken_down.tm_hour * 3600
        + (int64_t)broken_down.tm_min * 60 + (int64_t)broken_down.tm_sec;
    return 1;
}

/// basicConstraints of a certificate: -1 absent, -2 present but undecodable (or duplicated),
/// 0 cA FALSE, 1 cA TRUE.
static inline int passkey_x509_basic_constraints_ca(X509 *certificate) {
    int critical = -1;
    BASIC_CONSTRAINTS *constraints =
        (BASIC_CONSTRAINTS *)X509_get_ext_d2i(certificate, NID_basic_constraints, &critical, NULL);
    if (constraints == NULL) {
        return critical == -1 ? -1 : -2;
    }
    int is_ca = constraints->ca ? 1 : 0;
    BASIC_CONSTRAINTS_free(constraints);
    return is_ca;
}

/// extendedKeyUsage as a stack of OIDs; NULL if absent or undecodable (`*critical` tells which:
/// -1 absent, >= 0 present). Free with passkey_eku_free.
static inline EXTENDED_KEY_USAGE *passkey_x509_extended_key_usage(X509 *certificate, int *critical) {
    return (EXTENDED_KEY_USAGE *)X509_get_ext_d2i(certificate, NID_ext_key_usage, critical, NULL);
}
static inline int passkey_eku_count(const EXTENDED_KEY_USAGE *usage) {
    return sk_ASN1_OBJECT_num(usage);
}
static inline const ASN1_OBJECT *passkey_eku_oid(const EXTENDED_KEY_USAGE *usage, int index) {
    return sk_ASN1_OBJECT_value(usage, index);
}
static inline void passkey_eku_free(EXTENDED_KEY_USAGE *usage) {
    EXTENDED_KEY_USAGE_free(usage);
}

/// STACK_OF(X509) helpers (sk_X509_* are macros). The stack does not own its elements.
static inline STACK_OF(X509) *passkey_x509_stack_new(void) {
    return sk_X509_new_null();
}
static inline int passkey_x509_stack_push(STACK_OF(X509) *stack, X509 *certificate) {
    return sk_X509_push(stack, certificate);
}
static inline int passkey_x509_stack_count(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}
static inline void passkey_x509_stack_free(STACK_OF(X509) *stack) {
    sk_X509_free(stack);
}

#endif  // PASSKEY_OPENSSL_SHIM_H
