#!/usr/bin/python3
"""Loads a compose file with podman-compose's own parser (Debian's 1.0.3 has no `config` command) and prints, as JSON, what
the container test checks: each service's image, build context (made absolute), dependencies, ports, volumes, environment
and profiles, and the named volumes the file declares. Variables are substituted from the environment, as `up` does.

Usage: load-compose.py <compose.yaml>
"""
import argparse
import json
import os
import sys

import podman_compose


def main(path):
    compose = podman_compose.PodmanCompose()
    # The global options `up` would have, without running anything: only the parse.
    compose.global_args = argparse.Namespace(
        file=[path], project_name=None, no_ansi=True, no_cleanup=False, dry_run=True, command='config',
        podman_args=[], in_pod=False,
    )
    compose._parse_compose_file()
    services = {}
    for name, service in compose.services.items():
        build = service.get('build')
        context = build if isinstance(build, str) else (build or {}).get('context')
        services[name] = {
            'image': service.get('image'),
            'build': os.path.realpath(os.path.join(compose.dirname, context)) if context else None,
            'dependsOn': sorted(service.get('_deps', [])),
            'ports': service.get('ports', []),
            'volumes': service.get('volumes', []),
            'environment': service.get('environment', {}),
            'profiles': service.get('profiles', []),
            'healthcheck': service.get('healthcheck'),
        }
    json.dump({'services': services, 'volumes': sorted((compose.vols or {}).keys())}, sys.stdout, indent=2)


if __name__ == '__main__':
    main(sys.argv[1])
