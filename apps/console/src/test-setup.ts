import { configure } from '@testing-library/react';

// CI runs these beside the database suites on two cores: a second for a render to settle is too tight there.
configure({ asyncUtilTimeout: 5000 });
