// SPDX-License-Identifier: GPL-2.0
/*
 * Never run: linked against what src/output/http.c opens with dlopen(),
 * taking the address of every function it looks up there, so that
 * dpkg-shlibdeps computes the package's dependency on libmicrohttpd and
 * GnuTLS from their symbols files as it does for linked libraries
 * (debian/rules: override_dh_shlibdeps). tests/integration/package.t checks
 * that the names here are http.c's.
 */
#include <gnutls/gnutls.h>
#include <microhttpd.h>

/* not static: the references must survive the optimiser, or the linked
 * libraries look unused and dpkg-shlibdeps leaves them out */
void *const latbpf_dlopened[] = {
	/* libmicrohttpd */
	(void *)MHD_start_daemon, (void *)MHD_stop_daemon, (void *)MHD_quiesce_daemon,
	(void *)MHD_create_response_from_buffer,
	(void *)MHD_create_response_from_buffer_with_free_callback, (void *)MHD_add_response_header,
	(void *)MHD_queue_response, (void *)MHD_destroy_response,
	(void *)MHD_lookup_connection_value, (void *)MHD_get_connection_info,
	(void *)MHD_basic_auth_get_username_password,
	(void *)MHD_queue_basic_auth_fail_response, (void *)MHD_free,
	(void *)MHD_is_feature_supported,
	/* GnuTLS */
	(void *)gnutls_certificate_server_set_request, (void *)gnutls_session_set_verify_function,
	(void *)gnutls_certificate_get_peers, (void *)gnutls_certificate_verify_peers,
	(void *)gnutls_certificate_allocate_credentials,
	(void *)gnutls_certificate_free_credentials, (void *)gnutls_certificate_set_x509_key_mem2,
	(void *)gnutls_certificate_set_x509_trust_mem, (void *)gnutls_strerror,
};

int main(void)
{
	return 0;
}
