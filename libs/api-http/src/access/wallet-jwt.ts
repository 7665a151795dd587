import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AuthGuard, PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { API_AUTH, type ApiAuthDependencies } from './api-auth.dependencies';

/** The principal of key-management routes: the wallet that proved control of its key. */
export interface WalletSession {
  readonly wallet: string;
  readonly jti: string;
}

/** Issues the 15-minute HS256 JWT of POST /auth/token: iss, aud, sub = wallet, iat, exp, jti. */
@Injectable()
export class WalletTokenIssuer {
  private readonly jwt: JwtService;
  constructor(@Inject(API_AUTH) private readonly auth: ApiAuthDependencies) {
    this.jwt = new JwtService({ secret: auth.jwt.secret });
  }

  async issue(wallet: string): Promise<{ token: string; expiresAt: Date }> {
    const { issuer, audience, ttlSeconds } = this.auth.jwt;
    const token = await this.jwt.signAsync({ jti: randomUUID() }, { subject: wallet, issuer, audience, expiresIn: ttlSeconds, algorithm: 'HS256' });
    const { exp } = this.jwt.decode<{ exp: number }>(token);
    return { token, expiresAt: new Date(exp * 1000) };
  }
}

/** passport-jwt strategy: Bearer token, HS256 only, issuer and audience checked, expiry enforced. */
@Injectable()
export class WalletJwtStrategy extends PassportStrategy(Strategy, 'wallet-jwt') {
  constructor(@Inject(API_AUTH) auth: ApiAuthDependencies) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: auth.jwt.secret,
      issuer: auth.jwt.issuer,
      audience: auth.jwt.audience,
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
  }

  validate(payload: { sub?: unknown; jti?: unknown }): WalletSession | false {
    if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string') return false;
    return { wallet: payload.sub, jti: payload.jti };
  }
}

/** Key-management routes: 401 UNAUTHORIZED without a valid Bearer JWT. */
export class WalletJwtGuard extends AuthGuard('wallet-jwt') {}
