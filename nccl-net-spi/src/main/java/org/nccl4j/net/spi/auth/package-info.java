/**
 * Shared-secret authentication of connections ({@code NCCL4J_AUTH_KEY}): a challenge from the
 * accepting side, an HMAC answer from the connecting side.
 */
package org.nccl4j.net.spi.auth;
