import { describe, expect, it } from 'vitest';
import {
  addressRefusal,
  allowedPrivateOf,
  checkEndpointUrl,
  type TargetPolicy,
} from './target-policy.js';

const strict: TargetPolicy = { allowHttp: false, allowedPrivate: allowedPrivateOf([]) };

describe('addressRefusal', () => {
  it('lets public unicast addresses through, IPv4 and IPv6', () => {
    expect(addressRefusal('93.184.215.14', strict)).toBeNull();
    expect(addressRefusal('2606:4700::1111', strict)).toBeNull();
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12:3456::1', 'unique local'],
    ['169.254.10.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['64:ff9b::a00:1', 'NAT64'],
    ['2002:a00::1', '6to4'],
    ['169.254.169.254', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['255.255.255.255', 'broadcast'],
  ])('refuses %s as %s', (address, reason) => {
    expect(addressRefusal(address, strict)).toContain(reason);
  });

  it('lets a deployment allow hosts, addresses and ranges', () => {
    const policy: TargetPolicy = {
      allowHttp: true,
      allowedPrivate: allowedPrivateOf(['receiver.internal', '10.0.0.0/8', '::1']),
    };
    expect(addressRefusal('192.168.1.1', policy, 'receiver.internal')).toBeNull();
    expect(addressRefusal('10.200.0.1', policy)).toBeNull();
    expect(addressRefusal('::1', policy)).toBeNull();
    expect(addressRefusal('127.0.0.1', policy)).toContain('loopback');
    expect(addressRefusal('192.168.1.1', policy, 'other.internal')).toContain('private');
  });
});

describe('checkEndpointUrl', () => {
  it('takes an https URL with a public or unresolved host', () => {
    expect(checkEndpointUrl('https://hooks.example.com/in?x=1', strict)).toMatchObject({
      ok: true,
    });
    expect(checkEndpointUrl('https://8.8.8.8/in', strict)).toMatchObject({ ok: true });
  });

  it.each([
    ['not a url', 'absolute URL'],
    ['http://hooks.example.com/', 'https'],
    ['ftp://hooks.example.com/', 'https'],
    ['https://user:pw@hooks.example.com/', 'user name or password'],
    ['https://127.0.0.1/', 'loopback'],
    ['https://[::1]:8443/', 'loopback'],
    ['https://[::ffff:10.0.0.1]/', 'IPv4-mapped'],
    ['https://169.254.169.254/latest/meta-data', 'cloud metadata'],
    ['https://localhost/', 'localhost'],
    ['https://api.localhost/', 'localhost'],
  ])('refuses %s (%s)', (url, reason) => {
    const check = checkEndpointUrl(url, strict);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toContain(reason);
  });

  it('takes plain http and local receivers only where the deployment allows them', () => {
    const local: TargetPolicy = {
      allowHttp: true,
      allowedPrivate: allowedPrivateOf(['127.0.0.1', 'localhost']),
    };
    expect(checkEndpointUrl('http://127.0.0.1:9000/hook', local)).toMatchObject({ ok: true });
    expect(checkEndpointUrl('http://localhost:9000/hook', local)).toMatchObject({ ok: true });
    expect(checkEndpointUrl('http://10.0.0.1/hook', local)).toMatchObject({ ok: false });
  });
});
